package coordinator

import (
	"os"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/sandbox"
)

// TestFullSessionSetEvictsQuietSession holds the lockout a session-creating
// loop caused: with the set full of sessions quiet for over a minute, a new
// client gets a session (the least recently used one gives way), while
// sessions in use, held by a stream or running a job are kept.
func TestFullSessionSetEvictsQuietSession(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxSessions = 3 // default plus two
	c := New(Options{Config: cfg, Tools: []tool.Registration{}})
	t.Cleanup(c.Close)
	sessions := c.Sessions()
	create := func() (*Session, error) { return sessions.Create(api.ModeAct, api.Permissions{}) }
	quietFor := func(s *Session, d time.Duration) { s.touch(time.Now().Add(-d)) }

	older, err := create()
	if err != nil {
		t.Fatal(err)
	}
	newer, err := create()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := create(); err == nil {
		t.Fatal("a session was created while the others were in use seconds ago")
	}

	quietFor(older, 3*time.Minute)
	quietFor(newer, 2*time.Minute)
	third, err := create()
	if err != nil {
		t.Fatalf("a full set of sessions quiet for minutes refused a new client: %v", err)
	}
	if _, ok := sessions.lookup(older.ID); ok {
		t.Error("the least recently used session was kept")
	}
	if _, ok := sessions.lookup(newer.ID); !ok {
		t.Error("a more recently used session was evicted first")
	}

	t.Run("a held session is kept", func(t *testing.T) {
		release := newer.Hold()
		defer release()
		quietFor(newer, 50*time.Minute)
		quietFor(third, 30*time.Second)
		if s, err := create(); err == nil {
			t.Errorf("created %s by ending a held session or one used 30 s ago", s.ID)
		}
	})

	t.Run("a session running a job is kept", func(t *testing.T) {
		if _, err := os.Stat("/bin/sleep"); err != nil {
			t.Skip("no /bin/sleep")
		}
		job, err := newer.jobs.Start("toolu_job", tool.JobSpec{Command: "sleep 30"}, t.TempDir(), nil, sandbox.Run{})
		if err != nil {
			t.Fatal(err)
		}
		defer job.Kill()
		if job.State() != api.JobRunning {
			t.Fatalf("the job is %s: %+v", job.State(), job.Info())
		}
		quietFor(newer, 50*time.Minute) // within the idle time: not expired
		if s, err := create(); err == nil {
			t.Errorf("created %s by ending a session whose job runs", s.ID)
		}
		if _, ok := sessions.lookup(newer.ID); !ok {
			t.Error("the session with a running job was evicted")
		}
	})
}
