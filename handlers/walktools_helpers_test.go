package handlers

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/coordinator/tool"
)

// okText returns a successful result's text and fails on an error.
func okText(t *testing.T, res tool.Result, err error) string {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	if res.IsError || len(res.Content) != 1 {
		t.Fatalf("result = %+v, want one text block", res)
	}
	return res.Content[0].Text
}

// wantToolError checks that err is a ToolError with the given code.
func wantToolError(t *testing.T, err error, code string) {
	t.Helper()
	var te *tool.ToolError
	if !errors.As(err, &te) {
		t.Fatalf("error = %v, want a ToolError with code %s", err, code)
	}
	if te.Code != code {
		t.Fatalf("error code = %s (%s), want %s", te.Code, te.Message, code)
	}
}

// excludeNames hides every entry whose base name is in names.
func excludeNames(names ...string) excludeFunc {
	return func(rel string, isDir bool) bool {
		base := rel[strings.LastIndexByte(rel, '/')+1:]
		for _, n := range names {
			if base == n {
				return true
			}
		}
		return false
	}
}

// requireTool finds a Debian tool the test needs; it may only be missing
// outside CI.
func requireTool(t *testing.T, name, pkg string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		if os.Getenv("CI") == "" {
			t.Skipf("%s not installed", name)
		}
		t.Fatalf("%s not installed (Debian package %s)", name, pkg)
	}
}

// outsideDir is a directory beside the workspace holding a secret, for
// confinement tests.
func outsideDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "secret.txt"), []byte("needle secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

var bg = context.Background()
