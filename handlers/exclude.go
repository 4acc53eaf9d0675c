package handlers

import (
	"sync/atomic"

	"github.com/toolgate/toolgate/coordinator/tool"
)

// excludeFunc reports a workspace-relative path that a call must not see
// (a .clineignore rule covers it). The walking tools leave such entries out
// and say how many they left out.
type excludeFunc func(rel string, isDir bool) bool

// callExclude is where the workspace's .clineignore reaches the walking
// tools (search_files, list_files, list_code_definition_names): the ignore
// rules the call was authorized under. Nil (no call) excludes nothing.
func callExclude(call *tool.Call) excludeFunc {
	if call == nil {
		return nil
	}
	return call.Exclude
}

// exclusionCounter wraps an excludeFunc for engines that leave excluded
// entries out silently, counting what they left out.
type exclusionCounter struct {
	exclude excludeFunc
	n       atomic.Int64
}

// files adapts the counter to engines that leave out files and refuse
// directories: only the files it excludes are counted.
func (c *exclusionCounter) files() func(rel string, isDir bool) bool {
	if c.exclude == nil {
		return nil
	}
	return func(rel string, isDir bool) bool {
		if !c.exclude(rel, isDir) {
			return false
		}
		if !isDir {
			c.n.Add(1)
		}
		return true
	}
}

// excludedNote is the line results end with when entries were left out, so
// the model knows the answer is not the whole directory, naming the ignore
// files or permission rules that left them out.
func excludedNote(call *tool.Call, n int) string {
	if n == 0 {
		return ""
	}
	if call == nil {
		return "\n\n" + tool.IgnoredNote(n)
	}
	return "\n\n" + call.ExcludedNote(n)
}
