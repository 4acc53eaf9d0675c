package policy

import (
	"io/fs"
	"slices"
	"strings"
	"syscall"

	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/ignore"
)

// A hard link is a second name of the same file, with a path of its own
// that a deny rule does not name: `ln secret/key.txt notes.txt` would let
// Read, Grep, a listing or `cat notes.txt` show what Read(./secret/**)
// denies. So the files the read denials cover that have more than one
// name are looked for, and every other name of theirs in the workspace is
// added to the hidden paths, literally: each tool then keeps it out as it
// keeps out the file's denied name, and the sandbox masks it.

// maxLinkScan bounds the workspace entries looked at for other names of
// denied files; past it the scan stops (the names found so far are hidden).
const maxLinkScan = 200000

// fileKey identifies a file whatever its name.
type fileKey struct{ dev, ino uint64 }

// withNames is hidden with the names added literally.
func withNames(hidden *ignore.Matcher, names []string) *ignore.Matcher {
	if len(names) == 0 {
		return hidden
	}
	var pattern strings.Builder
	for _, n := range names {
		pattern.WriteString("/" + escapePattern(n) + "\n")
	}
	return hidden.WithRules(ignore.ParseRules(tool.HardLinkSource, "", []byte(pattern.String())))
}

// otherNames lists the workspace-relative names, not matched themselves,
// of the regular files matched that have several names. The matched
// files are looked for under roots (the rules' fixed leading
// directories), so the whole workspace is walked only when one of them
// has another name. rec, when not nil, stamps what the walks read
// (hardlinks_cache.go).
func otherNames(ws *tool.Workspace, roots []string, matched func(rel string) bool, rec *linkStamps) []string {
	var linked map[fileKey]bool
	for _, dir := range roots {
		rec.root(ws, dir)
		walkWorkspace(ws, dir, rec, func(p string, d fs.DirEntry) {
			// Only a matched file is stat'ed: the policy stage walks
			// when the kept result no longer stands
			// (BenchmarkPolicyStage/read_file, ./coordinator/;
			// docs/benchmarks.md).
			if !d.Type().IsRegular() || !matched(p) {
				return
			}
			if k, n := rec.file(p, d); n > 1 {
				if linked == nil {
					linked = map[fileKey]bool{}
				}
				linked[k] = true
			}
		})
	}
	if len(linked) == 0 {
		return nil
	}
	var out []string
	rec.root(ws, ".")
	walkWorkspace(ws, ".", rec, func(p string, d fs.DirEntry) {
		if !d.Type().IsRegular() {
			return
		}
		if k, n := inode(d); n > 1 && linked[k] && !matched(p) {
			out = append(out, p)
		}
	})
	return out
}

// denialRoots are the fixed leading paths of read-deny patterns (secret
// for /secret/**): where the files they cover are. A pattern that matches
// at any depth, or starts with a wildcard, has the workspace root. Each
// root is listed once: the walks under a root find the same files however
// many patterns name it, and twenty rules matching at any depth walked
// the whole workspace twenty times (BenchmarkDenialRootsOnce).
func denialRoots(patterns []string) []string {
	var out []string
	for _, p := range patterns {
		trimmed := strings.Trim(p, "/")
		root := "."
		if strings.HasPrefix(p, "/") || strings.Contains(trimmed, "/") {
			var fixed []string
			for _, seg := range strings.Split(trimmed, "/") {
				if strings.ContainsAny(seg, `*?[\`) {
					break
				}
				fixed = append(fixed, seg)
			}
			if len(fixed) > 0 {
				root = strings.Join(fixed, "/")
			}
		}
		if !slices.Contains(out, root) {
			out = append(out, root)
		}
	}
	return out
}

// walkWorkspace visits the entries under dir (workspace-relative), not
// following links, at most maxLinkScan of them: by Workspace.WalkEntries
// (BenchmarkWalkEntries, ./coordinator/tool/; docs/benchmarks.md), or
// through Root where that cannot walk dir. rec (when not nil) stamps each
// directory before it is read.
func walkWorkspace(ws *tool.Workspace, dir string, rec *linkStamps, visit func(p string, d fs.DirEntry)) {
	n := 0
	if ws.WalkEntries(dir, func(p string, d fs.DirEntry) bool {
		if n++; n > maxLinkScan {
			rec.spoil()
			return false
		}
		rec.dir(p, d)
		visit(p, d)
		return true
	}) {
		return
	}
	_ = fs.WalkDir(ws.Root.FS(), dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if n++; n > maxLinkScan {
			rec.spoil()
			return fs.SkipAll
		}
		if p != "." && p != dir {
			rec.dir(p, d)
		}
		if p != "." {
			visit(p, d)
		}
		return nil
	})
}

// inode is a file's identity and its number of names (0 when it cannot
// be stat'ed).
func inode(d fs.DirEntry) (fileKey, uint64) {
	info, err := d.Info()
	if err != nil {
		return fileKey{}, 0
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return fileKey{}, 0
	}
	return fileKey{dev: uint64(st.Dev), ino: st.Ino}, uint64(st.Nlink)
}

// escapePattern makes a path a gitignore pattern that matches it alone.
func escapePattern(p string) string {
	var b strings.Builder
	for _, r := range p {
		if strings.ContainsRune(`*?[]\!# `, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
