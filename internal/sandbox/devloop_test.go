package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestDevLoopInside: the everyday commands still work confined: git
// status and commit, go build and go test with a writable build cache,
// npm test on an offline project.
func TestDevLoopInside(t *testing.T) {
	for _, tool := range []string{"git", "go", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	cache := onDisk(t)
	ws := t.TempDir()
	writeFile(t, ws, "go.mod", "module devloop\n\ngo 1.22\n")
	writeFile(t, ws, "main.go", "package main\n\nfunc main() { println(add(1, 2)) }\n\nfunc add(a, b int) int { return a + b }\n")
	writeFile(t, ws, "main_test.go", "package main\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif add(1, 2) != 3 {\n\t\tt.Fatal(\"add\")\n\t}\n}\n")
	writeFile(t, ws, "package.json", `{"name": "devloop", "version": "1.0.0", "scripts": {"test": "node test.js"}}`)
	writeFile(t, ws, "test.js", "if (1 + 2 !== 3) process.exit(1); console.log('node tests pass');\n")
	s := New(Config{Writable: []string{cache}})
	if s.Mode() == InForceUnavailable {
		t.Skipf("no sandbox: %s", s.Info().Reason)
	}
	env := append(os.Environ(), "GOCACHE="+filepath.Join(cache, "go-build"), "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
		"npm_config_cache="+filepath.Join(cache, "npm"), "npm_config_offline=true", "npm_config_update_notifier=false")
	script := `set -e
git init -q . && git add -A && git commit -qm first && git status --short && echo GIT-OK
go build -o app . && ./app && go test ./... && echo GO-OK
npm test --silent && echo NPM-OK`
	p, err := s.Prepare([]string{"bash", "-c", script}, env, Run{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), p.Argv[0], p.Argv[1:]...)
	cmd.Env, cmd.Dir, cmd.ExtraFiles = p.Env, ws, p.ExtraFiles
	out, err := cmd.CombinedOutput()
	p.Finish()
	if err != nil {
		t.Fatalf("dev loop failed: %v\n%s", err, out)
	}
	for _, want := range []string{"GIT-OK", "GO-OK", "node tests pass", "NPM-OK"} {
		if !contains(string(out), want) {
			t.Errorf("output lacks %s:\n%s", want, out)
		}
	}
}
