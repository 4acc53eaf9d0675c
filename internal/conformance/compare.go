package conformance

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
)

// Outcome is one scripted call's two normalised results.
type Outcome struct {
	// Index is the call's place in the script, Name its tool, Note what
	// it provokes.
	Index      int
	Name, Note string
	// Client is the real client's result, Toolgate toolgate's, each as
	// Normalizer.Result gives it.
	Client, Toolgate string
}

// Identical reports whether the two results are the same bytes.
func (o Outcome) Identical() bool { return o.Client == o.Toolgate }

// Count returns how many outcomes are identical.
func Count(outcomes []Outcome) int {
	n := 0
	for _, o := range outcomes {
		if o.Identical() {
			n++
		}
	}
	return n
}

// Report writes the figure line, `identical N of M`, then one entry per
// call that differs: its index, tool and note, where the two first
// differ, and both results around that place (the whole of each when
// full is set).
func Report(w io.Writer, outcomes []Outcome, full bool) {
	fmt.Fprintf(w, "identical %d of %d\n", Count(outcomes), len(outcomes))
	for _, o := range outcomes {
		if o.Identical() {
			continue
		}
		at := commonPrefix(o.Client, o.Toolgate)
		fmt.Fprintf(w, "#%03d %s (%s): differ at byte %d\n", o.Index, o.Name, o.Note, at)
		fmt.Fprintf(w, "  client:   %s\n  toolgate: %s\n", excerpt(o.Client, at, full), excerpt(o.Toolgate, at, full))
	}
}

func commonPrefix(a, b string) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}

// excerpt is s around byte at, quoted: 60 bytes before, 140 after.
func excerpt(s string, at int, full bool) string {
	if full {
		return strconv.Quote(s)
	}
	from, to := max(at-60, 0), min(at+140, len(s))
	// Whole runes only.
	for from > 0 && from < len(s) && s[from]&0xC0 == 0x80 {
		from--
	}
	for to < len(s) && s[to]&0xC0 == 0x80 {
		to++
	}
	pre, post := "", ""
	if from > 0 {
		pre = "…"
	}
	if to < len(s) {
		post = "…"
	}
	return pre + strconv.Quote(s[from:to]) + post
}

// CompareTrees compares two directory trees file by file, leaving out
// .git directories and any relative path skip reports: the same set of
// paths, the same kinds, the same bytes once normalize (when not nil) has
// had each file's content. It returns the number of paths identical on
// both sides, the number of paths on either side, and one line per
// difference.
func CompareTrees(a, b string, skip func(rel string) bool, normalize func(content string) string) (same, total int, diffs []string) {
	ta, tb := tree(a, skip), tree(b, skip)
	if normalize != nil {
		for _, t := range []map[string]string{ta, tb} {
			for p, c := range t {
				t[p] = normalize(c)
			}
		}
	}
	paths := map[string]bool{}
	for p := range ta {
		paths[p] = true
	}
	for p := range tb {
		paths[p] = true
	}
	sorted := make([]string, 0, len(paths))
	for p := range paths {
		sorted = append(sorted, p)
	}
	sort.Strings(sorted)
	for _, p := range sorted {
		x, inA := ta[p]
		y, inB := tb[p]
		switch {
		case !inA:
			diffs = append(diffs, p+": only in toolgate's workspace")
		case !inB:
			diffs = append(diffs, p+": only in the client's workspace")
		case x != y:
			at := commonPrefix(x, y)
			diffs = append(diffs, fmt.Sprintf("%s: differs at byte %d: client %s, toolgate %s", p, at, excerpt(x, at, false), excerpt(y, at, false)))
		default:
			same++
		}
	}
	return same, len(sorted), diffs
}

// tree maps each relative path under root to its kind and content.
func tree(root string, skip func(string) bool) map[string]string {
	out := map[string]string{}
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		switch {
		case err != nil:
			out[rel] = "error: " + err.Error()
			return nil
		case rel == ".":
			return nil
		case d.IsDir() && d.Name() == ".git", skip != nil && skip(rel):
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		case d.IsDir():
			out[rel] = "dir"
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[rel] = "symlink " + target
		default:
			data, err := os.ReadFile(p)
			if err != nil {
				data = []byte("error: " + err.Error())
			}
			out[rel] = "file " + string(data)
		}
		return nil
	})
	return out
}
