package shellcmd

import (
	"path"
	"slices"
	"strings"
)

// unknownDir is the directory after a cd whose target is not known. It is
// absolute, so that paths joined to it are refused by callers that only
// accept workspace-relative paths.
const unknownDir = "/?"

// InUnknownDir reports whether a path from PathArgs is relative to a
// directory the analysis could not know, and returns it without that
// directory.
func InUnknownDir(p string) (string, bool) {
	return strings.CutPrefix(p, unknownDir+"/")
}

// maxDirs bounds the set of possible directories; `cd a; cd b; ...` doubles
// it at every step because each cd may fail.
const maxDirs = 16

// dirState is where the next command may run. likely assumes every cd
// succeeded; all also holds the directories left when some cd failed, which
// matters for `cd nowhere; cat .env` (cat then reads the root's .env).
type dirState struct {
	likely string
	all    []string
}

func single(d string) dirState { return dirState{likely: d, all: []string{d}} }

// union keeps s.likely and merges the possible directories.
func (s dirState) union(o dirState) dirState {
	all := slices.Clone(s.all)
	for _, d := range o.all {
		if !slices.Contains(all, d) {
			all = append(all, d)
		}
	}
	return dirState{likely: s.likely, all: all}
}

// cd applies a successful `cd target` to every possible directory.
func (s dirState) cd(target string) dirState {
	out := dirState{likely: joinDir(s.likely, target)}
	for _, d := range s.all {
		j := joinDir(d, target)
		if !slices.Contains(out.all, j) {
			out.all = append(out.all, j)
		}
	}
	return out
}

// joinDir resolves p against a workspace-relative or absolute directory,
// lexically: "" is the workspace root, and a result that climbs out of the
// workspace keeps its leading "../".
func joinDir(dir, p string) string {
	if path.IsAbs(p) {
		return path.Clean(p)
	}
	j := path.Join(dir, p)
	if j == "." {
		return ""
	}
	return j
}

// cdTarget returns the directory a cd/pushd with these arguments goes to,
// and false when it cannot be known without running a shell (no argument or
// ~ means $HOME, - means $OLDPWD, +N/-N address the directory stack).
func cdTarget(args []string, words []wordInfo) (string, bool) {
	var target []int
	opts := true
	for i := 1; i < len(args); i++ {
		switch {
		case opts && args[i] == "--":
			opts = false
		case opts && strings.HasPrefix(args[i], "-") && args[i] != "-" && words[i].resolved:
			if strings.Trim(args[i][1:], "LPe@") != "" {
				return "", false
			}
		default:
			target = append(target, i)
		}
	}
	if len(target) != 1 {
		return "", false
	}
	w := words[target[0]]
	if !w.resolved || w.glob || w.tilde || w.brace || w.value == "" || w.value == "-" ||
		strings.HasPrefix(w.value, "+") {
		return "", false
	}
	return w.value, true
}
