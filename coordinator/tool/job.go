package tool

import (
	"errors"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/internal/process"
	"github.com/toolgate/toolgate/internal/sandbox"
)

// JobSpec is a job to start.
type JobSpec struct {
	// Command is a command line for Shell.
	Command string
	// Shell runs Command ("": bash).
	Shell string
	// Dir is the absolute directory it starts in; "" means the workspace.
	Dir string
	// Env is its whole environment.
	Env []string
	// Stdin keeps a pipe to its standard input open for Write (a
	// persistent shell); otherwise stdin is empty.
	Stdin bool
	// MaxOutputBytes caps the output kept (0: 64 MiB); OutputDir is
	// where the part beyond memory is spilled ("": the temporary directory).
	MaxOutputBytes int64
	OutputDir      string
	// Spills, when set, holds the spilled part instead of OutputDir.
	Spills *process.SpillArea
	// Terminal, when set, runs the job under a pseudo-terminal of that
	// size (its output one stream, its stdin open as with Stdin).
	Terminal *TerminalSize
}

// TerminalSize is a terminal's window: rows and columns (0: 24 x 80).
type TerminalSize struct{ Rows, Cols uint16 }

// Jobs are a session's background jobs: commands a call starts on
// purpose to outlive it. The coordinator keeps them per session
// (coordinator/jobs.Table) and plugs them into a Call's Runtime.
type Jobs interface {
	// Start starts a job for the call toolUseID in dir (absolute),
	// confined by sb as confine says (a nil sb runs it unconfined).
	Start(toolUseID string, spec JobSpec, dir string, sb *sandbox.Sandbox, confine sandbox.Run) (Job, error)
	// Get finds a job by id.
	Get(id string) (Job, bool)
	// Forget drops an ended job and frees its output.
	Forget(id string)
	// List lists the jobs, oldest first.
	List() []Job
}

// Job is one background job of a session.
type Job interface {
	// ID is the job's id within its session.
	ID() string
	// State is running, exited, killed or failed.
	State() api.JobState
	// Done is closed when the job has ended.
	Done() <-chan struct{}
	// Info is the job as clients see it.
	Info() api.Job
	// Kill ends the job and everything it started; it returns at once.
	Kill()
	// Write sends input to the job's stdin (ErrNoStdin without one,
	// ErrJobEnded once it ended). It blocks while the command does not
	// read.
	Write(p []byte) (int, error)
	// Resize changes the window of a job's terminal.
	Resize(rows, cols uint16) error
	// Read returns up to max bytes of output from offset from and the
	// offset after them.
	Read(from int64, max int) (string, int64, error)
	// ReadNew returns the output written since the previous ReadNew, at
	// most max bytes.
	ReadNew(max int) (string, error)
	// ReadNewEnds reads as ReadNew, keeping only the first and last half
	// bytes of an output longer than 2*half and counting those between.
	ReadNewEnds(half int) (head, tail string, omitted int64, err error)
}

// ErrNoStdin: the job was started without standard input open.
var ErrNoStdin = errors.New("the job was started without standard input (start it with tty or stdin)")

// ErrJobEnded: the job has ended, its input with it.
var ErrJobEnded = errors.New("the job has ended")

// StartJob starts a background job in the call's session, confined by
// the sandbox like any command. It returns once the job has started.
// spec.Env is the job's whole environment (execute_command passes
// CommandConfig.ChildEnv()).
func (c *Call) StartJob(spec JobSpec) (Job, error) {
	if c.rt.Jobs == nil {
		return nil, errors.New("background jobs need a session")
	}
	dir := spec.Dir
	if dir == "" && c.Workspace != nil {
		dir = c.Workspace.Dir
	}
	sb, confine, err := c.Confinement(dir)
	if err != nil {
		return nil, err
	}
	return c.rt.Jobs.Start(c.ToolUseID, spec, dir, sb, confine)
}

// Job finds a job of the call's session by id.
func (c *Call) Job(id string) (Job, bool) {
	if c.rt.Jobs == nil {
		return nil, false
	}
	return c.rt.Jobs.Get(id)
}

// ForgetJob forgets an ended job of the call's session and frees its
// output: its end has been reported (a yield that saw it end), and its
// id is no longer a session to write to.
func (c *Call) ForgetJob(id string) {
	if c.rt.Jobs != nil {
		c.rt.Jobs.Forget(id)
	}
}

// Jobs lists the jobs of the call's session, oldest first.
func (c *Call) Jobs() []Job {
	if c.rt.Jobs == nil {
		return nil
	}
	return c.rt.Jobs.List()
}
