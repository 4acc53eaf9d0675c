package sandbox

import (
	"os"
	"os/exec"
	"testing"

	"golang.org/x/sys/unix"
)

// TestNextCgroupsAfterTheCommand: a session's command runs without the
// next command's limit cgroups being made or joined meanwhile (that work
// took the cores from the command); they are made once its end is
// reported, and the session's next command still gets the kept sandbox.
func TestNextCgroupsAfterTheCommand(t *testing.T) {
	s := newTest(t, Config{Mode: modeWarm}, "")
	if s.cgroups == nil {
		t.Skip("no limit cgroups here: a session's sandbox is not kept")
	}
	ws := onDisk(t)
	session := Run{Workspace: ws, Session: "next"}
	p := prepareStartedAhead(t, s, []string{"bash", "-c", "read -r line"}, session)
	in, feed, err := os.Pipe()
	if err != nil {
		p.Finish()
		t.Fatal(err)
	}
	defer in.Close()
	defer feed.Close()
	cmd := exec.Command(p.Argv[0], p.Argv[1:]...)
	cmd.Env, cmd.Dir, cmd.ExtraFiles, cmd.Stdin = p.Env, ws, p.ExtraFiles, in
	if err := p.Start(cmd); err != nil {
		p.Finish()
		t.Fatalf("Start: %v", err)
	}
	if p.warm.nextLimits != nil {
		t.Error("the next command's cgroups were being made while the command ran")
	}
	_ = feed.Close() // the command reads its end of input and exits
	fd := p.EndFD()
	if fd < 0 {
		p.Finish()
		t.Fatal("the run was not handed to a sandbox started ahead")
	}
	defer unix.Close(fd)
	if err := awaitReadable(fd); err != nil {
		p.Finish()
		t.Fatal(err)
	}
	ex, ok := p.Ended()
	if !ok || ex.Code != 1 { // read's status at the end of input
		t.Errorf("Ended: %+v, %v; want exit 1 reported", ex, ok)
	}
	if p.warm.nextLimits == nil {
		t.Error("the next command's cgroups were not made once the command's end was reported")
	}
	p.Finish()
	got := runReported(t, s, session, "exit 5", "next-cgroups")
	if !got.reused {
		t.Error("the session's next command did not get its kept sandbox")
	}
	if got.exit.Code != 5 {
		t.Errorf("the next command: exit %+v, want 5", got.exit)
	}
}
