package policy

import (
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"

	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/ignore"
)

// A path a deny rule keeps from editing (Claude Code's Edit(src/**),
// Cline's write_to_file(...)) is kept from commands too, as Claude Code's
// sandbox keeps it: a command's sandbox makes it read-only, as it makes
// the protected files (internal/sandbox protect.go), so that an approved
// `echo x > src/main.go` cannot do what Edit may not. A directory whose
// new entries the rules deny is read-only as a whole, so nothing can be
// made in it either.

// editingTools are the rule tool names that stand for changing files.
var editingTools = map[string]bool{
	"Edit": true, "Write": true, "MultiEdit": true, "NotebookEdit": true,
	"write_to_file": true, "replace_in_file": true, "new_rule": true, "*": true,
}

// maxReadOnly bounds the edit-denied paths one run makes read-only.
const maxReadOnly = 20000

// EditDenialPatterns are the workspace path patterns of the rules that
// deny editing.
func EditDenialPatterns(layers ...[]*Rule) []string {
	var out []string
	for _, layer := range layers {
		for _, r := range layer {
			if r.list != listDeny || r.globs == nil || r.absolute || !editingTools[r.tool] {
				continue
			}
			pattern, _ := pathPattern(r.content)
			out = append(out, pattern)
		}
	}
	return out
}

// newEntryProbe is a name no rule names on purpose: a directory in which
// a new entry of that name is denied is denied as a whole.
const newEntryProbe = "toolgate-new-entry-probe"

// EditDeniedPaths lists the absolute paths of the workspace entries the
// patterns deny editing, and the other names of the denied files that
// have several names; a directory denied as a whole is listed once and
// nothing below it. A sandboxed command asks for them before it starts:
// they are the kept answer while it stands (LinkCache), so a command
// costs a stat of each directory the walk read, not the walk (a pattern
// matching at any depth walks the whole workspace). The slice is the
// kept one: callers only read it.
func (lc *LinkCache) EditDeniedPaths(ws *tool.Workspace, patterns []string) []string {
	if ws == nil || len(patterns) == 0 {
		return nil
	}
	return lc.editPaths.get(ws, nil, patterns, func(rec *linkStamps) []string {
		return editDeniedPaths(ws, patterns, rec)
	})
}

// editDeniedPaths is EditDeniedPaths walked for, rec stamping what the
// walk read.
func editDeniedPaths(ws *tool.Workspace, patterns []string, rec *linkStamps) []string {
	m := editDenials(patterns)
	var out []string
	seen := map[string]bool{}
	list := func(p string) {
		if seen[p] {
			return
		}
		if len(out) >= maxReadOnly {
			rec.spoil() // a list cut short is not kept
			return
		}
		seen[p] = true
		out = append(out, filepath.Join(ws.Dir, filepath.FromSlash(p)))
	}
	denied := func(p string, dir bool) bool {
		_, hit := m.Match(p, dir)
		if !hit && dir {
			_, hit = m.Match(p+"/"+newEntryProbe, false)
		}
		return hit
	}
	roots := denialRoots(patterns)
	whole := map[string]bool{} // directories listed as a whole
	below := func(p string) bool {
		for d := path.Dir(p); d != "." && d != "/"; d = path.Dir(d) {
			if whole[d] {
				return true
			}
		}
		return false
	}
	for _, root := range roots {
		rec.root(ws, root)
		if root != "." {
			info, err := ws.Root.Lstat(root)
			if err != nil {
				continue
			}
			if denied(root, info.IsDir()) {
				list(root)
				whole[root] = info.IsDir()
				continue
			}
			if !info.IsDir() {
				continue
			}
		}
		walkWorkspace(ws, root, rec, func(p string, d fs.DirEntry) {
			if p == root || below(p) || !denied(p, d.IsDir()) {
				return
			}
			list(p)
			if d.IsDir() {
				whole[p] = true
			}
		})
	}
	// A hard link is another name of the file, writable as the file.
	for _, n := range otherNames(ws, roots, matchedBy(m), rec) {
		list(n)
	}
	return out
}

// editDenials is a matcher of the paths the patterns deny editing.
func editDenials(patterns []string) *ignore.Matcher {
	var data []byte
	for _, p := range patterns {
		data = append(data, p+"\n"...)
	}
	return (*ignore.Matcher)(nil).WithRules(ignore.ParseRules("edit deny rules", "", data))
}

// EditLinkDenial refuses a call that writes through a hard link to a
// file a deny rule keeps from editing, "" when it does not. The links are
// the kept answer (EditDeniedLinks): a call that writes costs a stat of
// what the walk read, not the walk.
func (lc *LinkCache) EditLinkDenial(ws *tool.Workspace, t *tool.Tool, sub *Subject, patterns []string) string {
	return editLinkDenial(ws, t, sub, patterns, lc.EditDeniedLinks)
}

// editLinkDenial is EditLinkDenial with the links from links.
func editLinkDenial(ws *tool.Workspace, t *tool.Tool, sub *Subject, patterns []string,
	links func(ws *tool.Workspace, patterns []string) []string) string {
	if ws == nil || !t.Writes || len(patterns) == 0 || len(sub.Paths) == 0 {
		return ""
	}
	other := links(ws, patterns)
	for _, p := range sub.Paths {
		if slices.Contains(other, p.Rel) {
			return fmt.Sprintf("Denied: %s is a hard link to a file a deny rule keeps from editing.", p.Rel)
		}
	}
	return ""
}

// EditRedirectDenial refuses a command line whose output redirection
// writes a workspace file a deny rule keeps from editing, as Claude Code
// denies `echo x > src/a.go` under Edit(src/**): no approval can make the
// write succeed, since the sandbox keeps the file read-only.
func EditRedirectDenial(sub *Subject, patterns []string) string {
	if sub.Command == nil || len(sub.Writes) == 0 || len(patterns) == 0 {
		return ""
	}
	m := editDenials(patterns)
	for _, w := range sub.Writes {
		hit := false
		// A rule naming a directory (Edit(src)) denies what is below it.
		for d := path.Dir(w); d != "." && d != "/" && !hit; d = path.Dir(d) {
			_, hit = m.Match(d, true)
		}
		if _, file := m.Match(w, false); hit || file {
			return fmt.Sprintf("Denied: the command writes %s (an output redirection), which a deny rule keeps from editing.", w)
		}
	}
	return ""
}
