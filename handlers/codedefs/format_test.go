package codedefs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestFormatBlock(t *testing.T) {
	lines := []string{"func A() {", "}", "func B() {}", "func C() {}\r", "", "   ", "func D() {}"}
	tests := []struct {
		name   string
		starts []int
		want   string
	}{
		{"none", nil, ""},
		{"one", []int{1}, "|----\n│func A() {\n|----\n"},
		{"adjacent lines share a run", []int{3, 4}, "|----\n│func B() {}\n│func C() {}\n|----\n"},
		{"a gap gets a separator", []int{1, 3}, "|----\n│func A() {\n|----\n│func B() {}\n|----\n"},
		{"blank lines are not printed", []int{5, 6}, ""},
		{"blank lines do not bridge a gap", []int{4, 5, 7}, "|----\n│func C() {}\n|----\n│func D() {}\n|----\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := formatBlock(lines, tt.starts); got != tt.want {
				t.Errorf("formatBlock(%v) = %q, want %q", tt.starts, got, tt.want)
			}
		})
	}
}

func TestClip(t *testing.T) {
	t.Run("short lines are kept", func(t *testing.T) {
		if got := clip("func A() {}"); got != "func A() {}" {
			t.Errorf("clip = %q", got)
		}
	})
	t.Run("long lines are cut on a rune boundary", func(t *testing.T) {
		long := strings.Repeat("a", maxLineBytes-1) + "é" + strings.Repeat("b", 50)
		got := clip(long)
		if want := strings.Repeat("a", maxLineBytes-1) + "…"; got != want {
			t.Errorf("clip = %q..., want %q...", got[len(got)-8:], want[len(want)-8:])
		}
	})
}

func TestIsDefinition(t *testing.T) {
	tests := []struct {
		language, kind, text string
		want                 bool
	}{
		{"Go", "func", "func A() {}", true},
		{"Go", "member", "\tX int", false},
		{"Go", "var", "var x = 1", false},
		{"Python", "member", "    def m(self):", true},
		{"Rust", "implementation", "impl A {", true},
		{"Unknown", "function", "function f() {}", false},
		{"JavaScript", "constant", "const f = () => 1", true},
		{"JavaScript", "constant", "export const h = async (a) => {", true},
		{"JavaScript", "variable", "var g = function () {", true},
		{"JavaScript", "field", "  onClick = e => {", true},
		{"TypeScript", "constant", "const f = (s: string): string => s", false}, // Cline's TypeScript query captures no function-valued constants
		{"TypeScript", "constant", "const App: React.FC<P> = ({ a }) => {", false},
		{"JavaScript", "constant", "const limit = 10;", false},
		{"JavaScript", "constant", "const xs = arr.map((a) => a);", false},
		{"TypeScript", "property", "  name: string;", false},
	}
	for _, tt := range tests {
		t.Run(tt.language+"/"+tt.text, func(t *testing.T) {
			if got := isDefinition(tt.language, tt.kind, tt.text); got != tt.want {
				t.Errorf("isDefinition(%q, %q, %q) = %v, want %v", tt.language, tt.kind, tt.text, got, tt.want)
			}
		})
	}
}

func TestReadRegular(t *testing.T) {
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{"a.go": "package a\n"})
	if err := os.Symlink("a.go", filepath.Join(ws, "link.go")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(ws, "fifo.go"), 0o644); err != nil {
		t.Fatal(err)
	}
	root := openRoot(t, ws)
	tests := []struct {
		name    string
		max     int64
		wantErr error
	}{
		{"a.go", 100, nil},
		{"a.go", 5, errTooLarge},
		{"link.go", 100, errNotRegular},
		{"fifo.go", 100, errNotRegular},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := readRegular(root, tt.name, tt.max)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("readRegular(%q) err = %v, want %v", tt.name, err, tt.wantErr)
			}
			if err == nil && string(data) != "package a\n" {
				t.Errorf("data = %q", data)
			}
		})
	}
}
