package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/sandbox"
)

// TestCommandsCannotReadAnyWorkspacesStateDatabase is the attack of an
// approved command reading the state databases (sessions, the whole
// audit log) of every workspace toolgate served, not only this one's:
// with the masks run gives the sandbox (stateDirs), a command that reads
// them all, in both sandbox modes, prints nothing of them.
func TestCommandsCannotReadAnyWorkspacesStateDatabase(t *testing.T) {
	for _, mode := range []string{sandbox.ModeBwrap, sandbox.ModeLandlock} {
		t.Run(mode, func(t *testing.T) {
			sb := sandbox.New(sandbox.Config{Mode: mode})
			if sb.Mode() != mode {
				t.Skipf("mode %s is not available here: %s", mode, sb.Info().Reason)
			}
			defer sb.Close()
			base, err := os.MkdirTemp("/var/tmp", "toolgate-state-")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(base) })
			env := map[string]string{"XDG_STATE_HOME": filepath.Join(base, "xdg"), "HOME": filepath.Join(base, "home")}
			getenv := func(k string) string { return env[k] }
			ws := filepath.Join(base, "ws")
			var dbs []string
			for _, w := range []string{ws, filepath.Join(base, "other")} {
				p, err := statePath(storeConfig{}, w, getenv)
				if err != nil {
					t.Fatal(err)
				}
				dbs = append(dbs, p)
			}
			// Under the home's default too, where a toolgate without
			// XDG_STATE_HOME keeps them.
			dbs = append(dbs, filepath.Join(base, "home", ".local", "state", "toolgate", "0123456789abcdef", "state.db"))
			for _, p := range append(dbs, filepath.Join(ws, "a")) {
				if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte("AUDIT-OF-"+p), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			own, _ := statePath(storeConfig{}, ws, getenv)
			r := sandbox.Run{Workspace: ws, Hide: append([]string{own}, stateDirs(getenv)...)}
			script := `cat ` + filepath.Join(base, "xdg") + `/toolgate/*/state.db ` + filepath.Join(base, "home") + `/.local/state/toolgate/*/*; ` +
				`grep -r AUDIT-OF ` + base + ` 2>/dev/null; true`
			p, err := sb.Prepare([]string{"bash", "-c", script}, os.Environ(), r)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, p.Argv[0], p.Argv[1:]...)
			cmd.Env, cmd.Dir, cmd.ExtraFiles = p.Env, ws, p.ExtraFiles
			out, _ := cmd.CombinedOutput()
			p.Finish()
			if bytes.Contains(out, []byte("AUDIT-OF-"+base+"/xdg")) || bytes.Contains(out, []byte("AUDIT-OF-"+base+"/home")) {
				t.Errorf("a state database was read:\n%s", out)
			}
			if !bytes.Contains(out, []byte("AUDIT-OF-"+ws)) {
				t.Errorf("the workspace itself was not readable (the test proves nothing):\n%s", out)
			}
		})
	}
}
