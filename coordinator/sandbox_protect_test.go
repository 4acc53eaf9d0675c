package coordinator

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/toolgate/toolgate/coordinator/tool"

	"github.com/toolgate/toolgate/internal/sandbox"
)

// TestCommandCannotRewriteTheConfiguredIgnoreAndProtectedFiles is the
// attack of an approved command that edits an extra ignore file (later
// calls would then read what it excluded) or a file protected_files
// names: in every sandbox mode both stay as they were.
func TestCommandCannotRewriteTheConfiguredIgnoreAndProtectedFiles(t *testing.T) {
	for _, mode := range []string{sandbox.ModeBwrap, sandbox.ModeLandlock} {
		t.Run(mode, func(t *testing.T) {
			if sb := sandbox.New(sandbox.Config{Mode: mode}); sb.Mode() != mode {
				t.Skipf("mode %s is not available here: %s", mode, sb.Info().Reason)
			}
			dir := t.TempDir()
			files := map[string]string{"policy/extra.ignore": "*.pem\n", "policy/agents.json": "{}\n"}
			for name, data := range files {
				if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			ws, err := tool.OpenWorkspace(dir)
			if err != nil {
				t.Fatal(err)
			}
			cfg := Config{Sandbox: sandbox.Config{Mode: mode}}
			cfg.IgnoreFiles, cfg.ProtectedFiles = []string{"policy/extra.ignore"}, []string{"policy/agents.json"}
			c := New(Options{Config: cfg, Workspace: ws})
			t.Cleanup(func() { c.Close(); ws.Close() })
			r, err := c.confine("", c.ignoreMatcher())
			if err != nil {
				t.Fatal(err)
			}
			p, err := c.sandbox.Prepare([]string{"bash", "-c", `for f in policy/extra.ignore policy/agents.json; do : > $f; rm -f $f; done; true`}, nil, r)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, p.Argv[0], p.Argv[1:]...)
			cmd.Env, cmd.Dir, cmd.ExtraFiles = p.Env, dir, p.ExtraFiles
			out, _ := cmd.CombinedOutput()
			p.Finish()
			for name, was := range files {
				if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != was {
					t.Errorf("%s changed: %q (%v)\n%s", name, b, err, out)
				}
			}
		})
	}
}
