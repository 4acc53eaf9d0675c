package ignore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// eventually polls cond until it holds or a generous deadline passes.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func ignoredBy(w *Watcher, p string) string {
	r, ign := w.Current().Match(p, false)
	if !ign {
		return ""
	}
	return r.String()
}

func TestWatcherReloads(t *testing.T) {
	for _, mode := range []struct {
		name   string
		notify bool
	}{{"fsnotify", true}, {"polling", false}} {
		t.Run(mode.name, func(t *testing.T) {
			root, dir := workspace(t, map[string]string{".clineignore": "a\n"})
			w, err := newWatcher(root, mode.notify, "extra.ignore")
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			if mode.notify && w.fsw == nil {
				t.Fatal("file notifications unavailable")
			}
			steps := []struct {
				name   string
				change func()
				path   string
				want   string
			}{
				{"initial", func() {}, "a", ".clineignore:1:a"},
				{"edit", func() { writeFile(t, dir, ".clineignore", "b\n") }, "b", ".clineignore:1:b"},
				{"delete", func() { remove(t, dir, ".clineignore") }, "b", ""},
				{"recreate", func() { writeFile(t, dir, ".clineignore", "\nc\n") }, "c", ".clineignore:2:c"},
				{"rename over", func() {
					writeFile(t, dir, ".clineignore.tmp", "d\n")
					rename(t, dir, ".clineignore.tmp", ".clineignore")
				}, "d", ".clineignore:1:d"},
				{"extra file appears", func() { writeFile(t, dir, "extra.ignore", "e\n") }, "e", "extra.ignore:1:e"},
				{"include added", func() { writeFile(t, dir, ".clineignore", "!include conf/inc\n") }, "x", ""},
				{"included file appears", func() { writeFile(t, dir, "conf/inc", "x\n") }, "x", "conf/inc:1:x"},
				{"included file edited", func() { writeFile(t, dir, "conf/inc", "y\n") }, "y", "conf/inc:1:y"},
				{"included dir removed", func() {
					if err := os.RemoveAll(filepath.Join(dir, "conf")); err != nil {
						t.Fatal(err)
					}
				}, "y", ""},
				{"included dir recreated", func() { writeFile(t, dir, "conf/inc", "z\n") }, "z", "conf/inc:1:z"},
			}
			for _, s := range steps {
				s.change()
				eventually(t, s.name+": "+s.path+" decided by "+s.want, func() bool {
					return ignoredBy(w, s.path) == s.want
				})
			}
		})
	}
}

func TestWatcherReportsErrors(t *testing.T) {
	root, dir := workspace(t, map[string]string{".clineignore": "!include missing\nsecret\n"})
	w, err := NewWatcher(root)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Err(); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("Err() = %v; want the missing include", err)
	}
	if got := ignoredBy(w, "secret"); got != ".clineignore:2:secret" {
		t.Errorf("secret decided by %q; want the rule after the broken include", got)
	}
	writeFile(t, dir, "missing", "more\n")
	eventually(t, "the include loads", func() bool { return w.Err() == nil && ignoredBy(w, "more") != "" })
}

func TestWatcherClose(t *testing.T) {
	root, dir := workspace(t, map[string]string{".clineignore": "a\n"})
	w, err := NewWatcher(root)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	writeFile(t, dir, ".clineignore", "b\n")
	if got := ignoredBy(w, "a"); got != ".clineignore:1:a" {
		t.Errorf("after Close, a decided by %q; want the last rules kept", got)
	}
}

func remove(t *testing.T, dir, name string) {
	t.Helper()
	if err := os.Remove(filepath.Join(dir, name)); err != nil {
		t.Fatal(err)
	}
}

func rename(t *testing.T, dir, from, to string) {
	t.Helper()
	if err := os.Rename(filepath.Join(dir, from), filepath.Join(dir, to)); err != nil {
		t.Fatal(err)
	}
}

// TestWatcherPollSeesSameStampRewrite rewrites a file keeping its size and
// modification time, as a coarse file system clock does for a quick edit.
func TestWatcherPollSeesSameStampRewrite(t *testing.T) {
	root, dir := workspace(t, map[string]string{".clineignore": "a\n"})
	w, err := newWatcher(root, false)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	name := filepath.Join(dir, ".clineignore")
	st, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, ".clineignore", "b\n")
	if err := os.Chtimes(name, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	eventually(t, "b is ignored", func() bool { return ignoredBy(w, "b") == ".clineignore:1:b" })
}
