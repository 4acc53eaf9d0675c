package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// TestDevLoopInside: the everyday commands still work confined, in each
// mode: git status and commit, go build and go test with a writable build
// cache, npm test on an offline project. And the cache must be listed in
// sandbox.writable: without it go build fails on the read-only cache
// (bubblewrap's read-only root, or Landlock's refusal).
func TestDevLoopInside(t *testing.T) {
	for _, tool := range []string{"git", "go", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	cache := onDisk(t) // shared: the second mode finds the standard library built
	for _, mode := range modes {
		t.Run(mode, func(t *testing.T) {
			ws := t.TempDir()
			writeFile(t, ws, "go.mod", "module devloop\n\ngo 1.22\n")
			writeFile(t, ws, "main.go", "package main\n\nfunc main() { println(add(1, 2)) }\n\nfunc add(a, b int) int { return a + b }\n")
			writeFile(t, ws, "main_test.go", "package main\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif add(1, 2) != 3 {\n\t\tt.Fatal(\"add\")\n\t}\n}\n")
			writeFile(t, ws, "package.json", `{"name": "devloop", "version": "1.0.0", "scripts": {"test": "node test.js"}}`)
			writeFile(t, ws, "test.js", "if (1 + 2 !== 3) process.exit(1); console.log('node tests pass');\n")
			env := append(os.Environ(), "GOCACHE="+filepath.Join(cache, "go-build"), "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local",
				"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
				"npm_config_cache="+filepath.Join(cache, "npm"), "npm_config_offline=true", "npm_config_update_notifier=false")
			run := func(s *Sandbox, script string, env []string) (string, error) {
				if s.Mode() == InForceUnavailable {
					t.Skipf("no sandbox: %s", s.Info().Reason)
				}
				p, err := s.Prepare([]string{"bash", "-c", script}, env, Run{Workspace: ws})
				if err != nil {
					t.Fatal(err)
				}
				cmd := exec.CommandContext(t.Context(), p.Argv[0], p.Argv[1:]...)
				cmd.Env, cmd.Dir, cmd.ExtraFiles = p.Env, ws, p.ExtraFiles
				out, err := cmd.CombinedOutput()
				p.Finish()
				return string(out), err
			}

			// A cache not made yet: one that exists is used read-only.
			fresh := append(slices.Clone(env), "GOCACHE="+filepath.Join(cache, "fresh-"+mode))
			out, err := run(New(Config{Mode: mode}), `go build -o app . && echo BUILT`, fresh)
			if err == nil || contains(out, "BUILT") || !(contains(out, "read-only file system") || contains(out, "permission denied")) {
				t.Errorf("go build with its cache outside sandbox.writable: err %v, want a read-only failure:\n%s", err, out)
			}

			out, err = run(New(Config{Mode: mode, Writable: []string{cache}}), `set -e
git init -q . && git add -A && git commit -qm first && git status --short && echo GIT-OK
go build -o app . && ./app && go test ./... && echo GO-OK
npm test --silent && echo NPM-OK`, env)
			if err != nil {
				t.Fatalf("dev loop failed: %v\n%s", err, out)
			}
			for _, want := range []string{"GIT-OK", "GO-OK", "node tests pass", "NPM-OK"} {
				if !contains(out, want) {
					t.Errorf("output lacks %s:\n%s", want, out)
				}
			}
		})
	}
}
