package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var shBlock = regexp.MustCompile("(?s)```sh\n(.*?)```")

// TestReadmeExamples runs every ```sh block of the README with real curl
// against a real server: the examples users copy must work.
func TestReadmeExamples(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("curl is required in CI")
		}
		t.Skip("curl not installed")
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
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
	blocks := shBlock.FindAllStringSubmatch(string(readme), -1)
	if len(blocks) < 5 {
		t.Fatalf("found %d sh examples in the README, want at least 5", len(blocks))
	}
	for i, m := range blocks {
		script := strings.ReplaceAll(m[1], "http://127.0.0.1:7420", inst.url)
		t.Run(firstLine(m[1], i), func(t *testing.T) {
			cmd := exec.Command("bash", "-e", "-o", "pipefail", "-c", script)
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
