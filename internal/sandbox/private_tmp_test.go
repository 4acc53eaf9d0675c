package sandbox

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestOtherRunsPrivateTmpIsNotReadable is the attack of a command reading
// what a command of another call or session keeps in its private
// temporary directory while it runs (Landlock-only mode makes those
// directories in the shared temporary directory): the reader prints
// nothing of it.
func TestOtherRunsPrivateTmpIsNotReadable(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode, func(t *testing.T) {
			s := newTest(t, Config{Mode: mode}, "")
			ws := filepath.Join(onDisk(t), "ws")
			writeFile(t, ws, "a", "a")
			p, err := s.Prepare([]string{"bash", "-c", `echo OTHER-RUN-TMP > "$TMPDIR/secret"; echo ready; read x`}, os.Environ(), Run{Workspace: ws})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			holder := exec.CommandContext(ctx, p.Argv[0], p.Argv[1:]...)
			holder.Env, holder.Dir, holder.ExtraFiles = p.Env, ws, p.ExtraFiles
			holder.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
			stdin, _ := holder.StdinPipe()
			stdout, _ := holder.StdoutPipe()
			if err := holder.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = stdin.Close(); _ = holder.Wait(); p.Finish() }()
			if line, _ := bufio.NewReader(stdout).ReadString('\n'); line != "ready\n" {
				t.Fatalf("the holding run did not start: %q", line)
			}
			tmp := os.TempDir()
			o := runIn(t, s, Run{Workspace: ws}, `cat `+tmp+`/toolgate-run-*/secret `+tmp+`/toolgate-runs-*/*/secret; true`)
			if contains(o.out, "OTHER-RUN-TMP") {
				t.Errorf("another run's temporary file was read:\n%s", o.out)
			}
		})
	}
}
