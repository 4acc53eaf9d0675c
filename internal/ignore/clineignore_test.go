package ignore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// workspace creates files (workspace-relative name -> contents) in a fresh
// directory and opens it as a root.
func workspace(t *testing.T, files map[string]string) (*os.Root, string) {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		writeFile(t, dir, name, data)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return root, dir
}

func writeFile(t *testing.T, dir, name, data string) {
	t.Helper()
	full := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// expectation is one path and the rule that must decide it ("" for none).
type expectation struct {
	path    string
	ignored bool
	rule    string // Rule.String() of the deciding rule, or ""
}

func checkMatches(t *testing.T, m *Matcher, want []expectation) {
	t.Helper()
	for _, w := range want {
		r, ign := m.Match(w.path, false)
		got := ""
		if r.Source != "" {
			got = r.String()
		}
		if ign != w.ignored || got != w.rule {
			t.Errorf("Match(%q) = %q, %v; want %q, %v", w.path, got, ign, w.rule, w.ignored)
		}
	}
}

// LoadClineignore loads .clineignore and the extra files once, as the
// Watcher does on every change.
func LoadClineignore(root *os.Root, extra ...string) (*Matcher, error) {
	m, _, err := load(root, append([]string{ClineignoreFile}, extra...))
	return m, err
}

// clineignoreCases are workspaces and what LoadClineignore must make of them.
var clineignoreCases = []struct {
	name    string
	files   map[string]string
	extra   []string
	want    []expectation
	wantErr string // substring of the error, "" for none
}{
	{
		name: "no file ignores nothing",
		want: []expectation{{path: ".env"}},
	},
	{
		name:  "rules relative to the root",
		files: map[string]string{".clineignore": "# secrets\n.env\n/build/\n"},
		want: []expectation{
			{path: ".env", ignored: true, rule: ".clineignore:2:.env"},
			{path: "sub/.env", ignored: true, rule: ".clineignore:2:.env"},
			{path: "build/x.o", ignored: true, rule: ".clineignore:3:/build/"},
			{path: "sub/build/x.o"},
		},
	},
	{
		name: "include spliced at its line",
		files: map[string]string{
			".clineignore":       "*.key\n!include conf/extra.ignore\n!public.key\n",
			"conf/extra.ignore":  "secrets/\n!*.pem\n",
			"secrets/public.key": "",
		},
		want: []expectation{
			{path: "a.key", ignored: true, rule: ".clineignore:1:*.key"},
			{path: "public.key", rule: ".clineignore:3:!public.key"},
			{path: "secrets/public.key", ignored: true, rule: "conf/extra.ignore:1:secrets/"},
			{path: "x.pem", rule: "conf/extra.ignore:2:!*.pem"},
		},
	},
	{
		name:  "the file covers itself, past a negation",
		files: map[string]string{".clineignore": "!.clineignore\n*.env\n"},
		want: []expectation{
			{path: ".clineignore", ignored: true, rule: ".clineignore:0:.clineignore"},
			{path: "sub/.clineignore", ignored: true, rule: ".clineignore:0:.clineignore"},
			{path: "a.env", ignored: true, rule: ".clineignore:2:*.env"},
		},
	},
	{
		name:  "an empty file covers nothing, itself included",
		files: map[string]string{".clineignore": ""},
		want:  []expectation{{path: ".clineignore"}},
	},
	{
		name: "nested include",
		files: map[string]string{
			".clineignore": "!include a\n", "a": "!include b\nfrom-a\n", "b": "from-b\n",
		},
		want: []expectation{
			{path: "from-a", ignored: true, rule: "a:2:from-a"},
			{path: "x/from-b", ignored: true, rule: "b:1:from-b"},
		},
	},
	{
		name:  "extra files take precedence",
		files: map[string]string{".clineignore": "*.log\n", "team.ignore": "!keep.log\n"},
		extra: []string{"team.ignore", "missing.ignore"},
		want: []expectation{
			{path: "a.log", ignored: true, rule: ".clineignore:1:*.log"},
			{path: "keep.log", rule: "team.ignore:1:!keep.log"},
		},
	},
	{
		name:    "missing include keeps other rules",
		files:   map[string]string{".clineignore": ".env\n!include nothere\nid_rsa\n"},
		want:    []expectation{{path: ".env", ignored: true, rule: ".clineignore:1:.env"}, {path: "id_rsa", ignored: true, rule: ".clineignore:3:id_rsa"}},
		wantErr: `.clineignore:2: !include "nothere"`,
	},
	{
		name:    "include cycle",
		files:   map[string]string{".clineignore": "!include a\n", "a": "x\n!include b\n", "b": "!include a\n"},
		want:    []expectation{{path: "x", ignored: true, rule: "a:1:x"}},
		wantErr: "include cycle a -> b -> a",
	},
	{
		name:    "self include",
		files:   map[string]string{".clineignore": "!include ./.clineignore\n"},
		wantErr: "include cycle .clineignore -> .clineignore",
	},
	{
		name:    "include outside the workspace",
		files:   map[string]string{".clineignore": "!include ../etc/passwd\n"},
		wantErr: "leaves the workspace",
	},
	{
		name:    "absolute include",
		files:   map[string]string{".clineignore": "!include /etc/passwd\n"},
		wantErr: "absolute",
	},
	{
		name:    "include of a directory",
		files:   map[string]string{".clineignore": "!include conf\n", "conf/x": ""},
		wantErr: "not a regular file",
	},
}

func TestLoadClineignore(t *testing.T) {
	for _, tt := range clineignoreCases {
		t.Run(tt.name, func(t *testing.T) {
			root, _ := workspace(t, tt.files)
			m, err := LoadClineignore(root, tt.extra...)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("LoadClineignore: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("LoadClineignore error = %v; want one containing %q", err, tt.wantErr)
			}
			if m == nil {
				t.Fatal("LoadClineignore returned a nil matcher")
			}
			checkMatches(t, m, tt.want)
		})
	}
}

func TestLoadClineignoreRefusesEscapes(t *testing.T) {
	outside := t.TempDir()
	writeFile(t, outside, "rules", "*\n")
	t.Run("symlinked include leading out", func(t *testing.T) {
		root, dir := workspace(t, map[string]string{".clineignore": "!include link\n"})
		if err := os.Symlink(filepath.Join(outside, "rules"), filepath.Join(dir, "link")); err != nil {
			t.Fatal(err)
		}
		m, err := LoadClineignore(root)
		if err == nil {
			t.Fatal("LoadClineignore followed a symlink out of the workspace")
		}
		// The one rule left is the file's own (selfRule).
		if _, ign := m.Match("anything", false); ign || m.Len() != 1 {
			t.Errorf("matcher has %d rules, some read from outside the workspace", m.Len())
		}
	})
	t.Run("fifo does not block", func(t *testing.T) {
		root, dir := workspace(t, nil)
		if err := mkfifo(filepath.Join(dir, ".clineignore")); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		if _, err := LoadClineignore(root); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("LoadClineignore error = %v; want not a regular file", err)
		}
	})
}
