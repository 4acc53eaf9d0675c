package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/toolgate/toolgate/coordinator/tool"
	procs "github.com/toolgate/toolgate/internal/process"
	"github.com/toolgate/toolgate/internal/sandbox"
)

// TestCommandsCannotReadOtherCallsSpilledOutputs is the attack of a
// command reading the spilled outputs of other calls and sessions, which
// Landlock-only mode leaves readable in the shared temporary directory:
// with the spill directory run gives the server (openSpills, by default)
// masked as run masks it (commands.output_dir), a command that reads every
// spill file of every toolgate prints nothing of them, in both modes.
func TestCommandsCannotReadOtherCallsSpilledOutputs(t *testing.T) {
	var cmds tool.CommandConfig
	closeSpills, err := openSpills(&cmds, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer closeSpills()
	o := procs.NewOutput(procs.OutputLimits{Memory: 16, Area: cmds.Spills})
	_, _ = o.Write(bytes.Repeat([]byte("OTHER-CALL-OUTPUT "), 10))
	_ = o.Close()
	defer o.Remove()
	if o.SpillFile() == "" || filepath.Dir(o.SpillFile()) != cmds.Spills.Dir() {
		t.Fatalf("the output was not spilled to the server's directory: %q", o.SpillFile())
	}
	for _, mode := range []string{sandbox.ModeBwrap, sandbox.ModeLandlock} {
		t.Run(mode, func(t *testing.T) {
			sb := sandbox.New(sandbox.Config{Mode: mode})
			if sb.Mode() != mode {
				t.Skipf("mode %s is not available here: %s", mode, sb.Info().Reason)
			}
			defer sb.Close()
			ws := t.TempDir()
			script := `cat ` + o.SpillFile() + `; cat ` + os.TempDir() + `/toolgate-outputs-*/*/*; true`
			p, err := sb.Prepare([]string{"bash", "-c", script}, os.Environ(), sandbox.Run{Workspace: ws, Hide: []string{cmds.OutputDir}})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, p.Argv[0], p.Argv[1:]...)
			cmd.Env, cmd.Dir, cmd.ExtraFiles = p.Env, ws, p.ExtraFiles
			out, _ := cmd.CombinedOutput()
			p.Finish()
			if bytes.Contains(out, []byte("OTHER-CALL-OUTPUT")) {
				t.Errorf("a spilled output was read:\n%.1000s", out)
			}
		})
	}
}
