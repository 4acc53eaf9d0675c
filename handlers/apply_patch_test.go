package handlers

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestApplyPatchGolden runs every patch of testdata/apply_patch through the
// real pipeline. Each case holds before/ (the workspace), patch (the
// apply_patch input) and either after/ (the workspace afterwards, exactly)
// or error ("code=<code>" then lines the error must contain; the
// workspace must be left exactly as before/). An optional result file lists
// lines a successful result must contain. The format follows Cline's
// ApplyPatchHandler.ts and PatchParser.ts (v4.0.12) and Codex's
// codex-rs/apply-patch (parser.rs, seek_sequence.rs).
func TestApplyPatchGolden(t *testing.T) {
	cases, err := os.ReadDir("testdata/apply_patch")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if !c.IsDir() {
			continue
		}
		t.Run(c.Name(), func(t *testing.T) {
			dir := filepath.Join("testdata/apply_patch", c.Name())
			f := newFixtureWith(t, func(ws string) { copyTree(t, filepath.Join(dir, "before"), ws) })
			before := treeOf(t, f.dir)
			patchText := readT(t, filepath.Join(dir, "patch"))

			res, rec := f.call(t, "apply_patch", ApplyPatchInput{Input: patchText})
			got := text(res)

			if want, ok := readOptional(t, filepath.Join(dir, "error")); ok {
				lines := strings.Split(strings.TrimSpace(want), "\n")
				code := strings.TrimPrefix(lines[0], "code=")
				if !res.IsError || rec.Error == nil || rec.Error.Code != code {
					t.Fatalf("want error code %s, got is_error=%v record %+v\n%s", code, res.IsError, rec.Error, got)
				}
				for _, l := range lines[1:] {
					if !strings.Contains(got, l) {
						t.Errorf("error lacks %q:\n%s", l, got)
					}
				}
				assertTree(t, f.dir, before)
				return
			}
			if res.IsError {
				t.Fatalf("apply_patch failed: %s", got)
			}
			assertTree(t, f.dir, treeOf(t, filepath.Join(dir, "after")))
			if want, ok := readOptional(t, filepath.Join(dir, "result")); ok {
				for _, l := range strings.Split(strings.TrimSpace(want), "\n") {
					if !strings.Contains(got, l) {
						t.Errorf("result lacks %q:\n%s", l, got)
					}
				}
			}
		})
	}
}

// treeOf maps every regular file under dir (slash paths) to its content.
func treeOf(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		b, err := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func assertTree(t *testing.T, dir string, want map[string]string) {
	t.Helper()
	got := treeOf(t, dir)
	for name, w := range want {
		if g, ok := got[name]; !ok {
			t.Errorf("%s: missing", name)
		} else if g != w {
			t.Errorf("%s:\ngot  %q\nwant %q", name, g, w)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s: present, want absent", name)
		}
	}
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	for name, content := range treeOf(t, from) {
		p := filepath.Join(to, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func readT(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func readOptional(t *testing.T, p string) (string, bool) {
	t.Helper()
	b, err := os.ReadFile(p)
	if os.IsNotExist(err) {
		return "", false
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b), true
}
