package main

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var shBlock = regexp.MustCompile("(?s)```sh\n(.*?)```")

// docFile is one page of the user documentation.
type docFile struct {
	name string // relative to the repository root
	text []byte
}

// docFiles reads README.md and every docs/**/*.md page, README first.
func docFiles(t *testing.T) []docFile {
	t.Helper()
	names := []string{"README.md"}
	err := filepath.WalkDir("../../docs", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			names = append(names, strings.TrimPrefix(filepath.ToSlash(path), "../../"))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]docFile, 0, len(names))
	for _, name := range names {
		text, err := os.ReadFile(filepath.Join("../..", name))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, docFile{name: name, text: text})
	}
	return out
}

// TestReadmeExamples runs every ```sh block of README.md and docs/ with
// real curl against a real server: the examples users copy must work.
// Each page gets a fresh server and workspace and runs its blocks in
// order, as a reader following it would; none may answer a failed call,
// nor a read flagged as a duplicate (a walk-through that reads one file
// three times teaches the model's guard, not the API).
func TestReadmeExamples(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("curl is required in CI")
		}
		t.Skip("curl not installed")
	}
	total := 0
	for _, doc := range docFiles(t) {
		blocks := shBlock.FindAllStringSubmatch(string(doc.text), -1)
		if doc.name == "README.md" && len(blocks) < 5 {
			t.Fatalf("found %d sh examples in the README, want at least 5", len(blocks))
		}
		if len(blocks) == 0 {
			continue
		}
		total += len(blocks)
		t.Run(doc.name, func(t *testing.T) { runDocExamples(t, blocks) })
	}
	t.Logf("%d sh examples run", total)
}

// runDocExamples starts a server on a workspace holding a copy of the
// README and go.mod and runs one page's blocks against it, in order.
func runDocExamples(t *testing.T, blocks [][]string) {
	dir := t.TempDir()
	for _, name := range []string{"README.md", "go.mod"} {
		data, err := os.ReadFile(filepath.Join("../..", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	inst := start(t, dir)
	for i, m := range blocks {
		script := strings.ReplaceAll(m[1], "http://127.0.0.1:7420", inst.url)
		t.Run(firstLine(m[1], i), func(t *testing.T) {
			cmd := exec.CommandContext(t.Context(), "bash", "-e", "-o", "pipefail", "-c", script)
			cmd.Dir = t.TempDir()
			cmd.Env = append(os.Environ(), "TOOLGATE_TOKEN="+inst.token)
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if errors.As(err, &exit) && exit.ExitCode() == 28 && strings.Contains(script, "--max-time") {
				err = nil // a stream example that ends by its time limit
			}
			if err != nil {
				t.Fatalf("example failed: %v\n%s\n%s", err, script, out)
			}
			if len(out) == 0 {
				t.Errorf("example printed nothing:\n%s", script)
			}
			if strings.Contains(string(out), `"is_error":true`) {
				t.Errorf("example produced a failed tool call:\n%s", out)
			}
			if strings.Contains(string(out), "[DUPLICATE READ]") {
				t.Errorf("example read a file the page had already read twice:\n%s", out)
			}
		})
	}
}

func firstLine(s string, i int) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	if len(line) > 60 {
		line = line[:60]
	}
	return strings.NewReplacer(" ", "_", "/", "_").Replace(line) + "_" + string(rune('0'+i%10))
}
