package helper

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/landlock-lsm/go-landlock/landlock"
)

// Landlock only grants: it cannot take a subtree back from a grant on its
// parent. To keep hidden paths out, the grants are made on the siblings
// along each hidden path instead of on their common parent; the
// directories on the way get the listing right only.

// readExcept grants reading everything but the hidden paths.
func readExcept(hidden []string) []landlock.Rule {
	return grantExcept("/", hidden, landlock.RODirs, landlock.ROFiles)
}

// writeExcept grants reading and writing root but the hidden paths.
func writeExcept(root string, hidden []string) []landlock.Rule {
	rw := func(p ...string) landlock.FSRule { return landlock.RWDirs(p...).WithRefer() }
	return grantExcept(root, hidden, rw, landlock.RWFiles)
}

func grantExcept(root string, hidden []string, dirRule, fileRule func(...string) landlock.FSRule) []landlock.Rule {
	var inside []string
	for _, h := range hidden {
		if h != root && within(h, root) {
			inside = append(inside, h)
		}
	}
	if len(inside) == 0 {
		return []landlock.Rule{dirRule(root).IgnoreIfMissing()}
	}
	ancestors := map[string]bool{}
	for _, h := range inside {
		for d := filepath.Dir(h); within(d, root); d = filepath.Dir(d) {
			ancestors[d] = true
			if d == root || d == "/" {
				break
			}
		}
	}
	isHidden := func(p string) bool {
		for _, h := range inside {
			if within(p, h) {
				return true
			}
		}
		return false
	}
	var dirs, files, listOnly []string
	for d := range ancestors {
		listOnly = append(listOnly, d)
		entries, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range entries {
			p := filepath.Join(d, e.Name())
			if ancestors[p] || isHidden(p) {
				continue
			}
			// A grant follows links: one leading into a hidden path, or
			// above one, would grant it.
			real, err := filepath.EvalSymlinks(p)
			if err != nil || isHidden(real) || leadsTo(real, inside) {
				continue
			}
			if st, err := os.Stat(p); err == nil && st.IsDir() {
				dirs = append(dirs, p)
			} else {
				files = append(files, p)
			}
		}
	}
	rules := []landlock.Rule{landlock.PathAccess(landlock.AccessFSSet(accessReadDir), listOnly...).IgnoreIfMissing()}
	if len(dirs) > 0 {
		rules = append(rules, dirRule(dirs...).IgnoreIfMissing())
	}
	if len(files) > 0 {
		rules = append(rules, fileRule(files...).IgnoreIfMissing())
	}
	return rules
}

// accessReadDir is LANDLOCK_ACCESS_FS_READ_DIR.
const accessReadDir = 1 << 3

// leadsTo reports whether p is an ancestor of one of paths.
func leadsTo(p string, paths []string) bool {
	for _, h := range paths {
		if h != p && strings.HasPrefix(h, strings.TrimSuffix(p, "/")+"/") {
			return true
		}
	}
	return false
}

// within reports whether p is dir or below it.
func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}
