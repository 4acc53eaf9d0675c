package sandbox

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

func BenchmarkTmpSessionPrepare(b *testing.B) {
	s := New(Config{Mode: ModeBwrap})
	defer s.Close()
	s.helper = helperBinary(b)
	ws := b.TempDir()
	argv := []string{"bash", "-c", "true"}
	var prep time.Duration
	for i := 0; b.Loop(); i++ {
		t := time.Now()
		p, err := s.Prepare(argv, os.Environ(), Run{Workspace: ws, StartOnThread: true, Warm: true, Session: "x"})
		if err != nil {
			b.Fatal(err)
		}
		prep += time.Since(t)
		cmd := exec.Command(p.Argv[0], p.Argv[1:]...)
		cmd.Env, cmd.Dir, cmd.ExtraFiles = p.Env, ws, p.ExtraFiles
		if err := p.Start(cmd); err != nil {
			b.Fatal(err)
		}
		waitRun(b, p, cmd)
		p.Finish()
		time.Sleep(2 * time.Millisecond)
	}
	b.ReportMetric(float64(prep.Microseconds())/float64(b.N), "prep-µs")
}
