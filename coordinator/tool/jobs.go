package tool

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/internal/process"
	"github.com/toolgate/toolgate/internal/sandbox"
)

// Background jobs are commands a call starts on purpose to outlive it (a
// dev server, a watcher): everything else a call starts dies with the
// call. A job belongs to its session: it is listed there, its output can
// be read while it runs, it can be killed, and it ends with the session.
// It runs in the same sandbox as any command.

// maxRunningJobs bounds the jobs one session has running at once.
const maxRunningJobs = 16

// maxJobsKept bounds the jobs a session remembers, finished ones
// included; the oldest finished go first.
const maxJobsKept = 64

// JobSpec is a job to start.
type JobSpec struct {
	// Command is a bash command line.
	Command string
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

// Job is a background command of a session.
type Job struct {
	id, command, toolUseID string
	started                time.Time
	out                    *process.Output
	stdin                  *io.PipeWriter // nil without Stdin
	term                   *process.Terminal
	cancel                 context.CancelFunc
	done                   chan struct{}

	mu     sync.Mutex
	ended  time.Time
	state  api.JobState
	exit   *int
	reason string
	cursor int64 // ReadNew's position
}

// JobTable is a session's jobs.
type JobTable struct {
	ctx   context.Context // the session's: ending it ends the jobs
	mu    sync.Mutex
	next  int
	byID  map[string]*Job
	order []string
}

// NewJobTable is an empty table whose jobs end when ctx does.
func NewJobTable(ctx context.Context) *JobTable {
	return &JobTable{ctx: ctx, byID: map[string]*Job{}}
}

// StartJob starts a background job in the call's session, confined by
// the sandbox like any command. It returns once the job has started.
// spec.Env is the job's whole environment (execute_command passes
// CommandConfig.ChildEnv()).
func (c *Call) StartJob(spec JobSpec) (*Job, error) {
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
func (c *Call) Job(id string) (*Job, bool) {
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
		c.rt.Jobs.forget(id)
	}
}

// forget drops an ended job.
func (t *JobTable) forget(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	j, ok := t.byID[id]
	if !ok || j.State() == api.JobRunning {
		return
	}
	_ = j.out.Remove()
	delete(t.byID, id)
	for i, o := range t.order {
		if o == id {
			t.order = append(t.order[:i], t.order[i+1:]...)
			break
		}
	}
}

// Jobs lists the jobs of the call's session, oldest first.
func (c *Call) Jobs() []*Job {
	if c.rt.Jobs == nil {
		return nil
	}
	return c.rt.Jobs.List()
}

// Start starts a job for the call toolUseID in dir (absolute), confined
// by sb as confine says (a nil sb runs it unconfined).
func (t *JobTable) Start(toolUseID string, spec JobSpec, dir string, sb *sandbox.Sandbox, confine sandbox.Run) (*Job, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ctx.Err() != nil {
		return nil, Errorf(api.ToolCodeFailed, "the session has ended")
	}
	running := 0
	for _, j := range t.byID {
		if j.State() == api.JobRunning {
			running++
		}
	}
	if running >= maxRunningJobs {
		return nil, Errorf(api.ToolCodeFailed, "this session already has %d background jobs running; kill one first", running)
	}
	t.next++
	ctx, cancel := context.WithCancel(t.ctx)
	j := &Job{id: "job_" + strconv.Itoa(t.next), command: spec.Command, toolUseID: toolUseID, started: time.Now().UTC(),
		out:    process.NewOutput(process.OutputLimits{Full: spec.MaxOutputBytes, Dir: spec.OutputDir, Area: spec.Spills}),
		cancel: cancel, done: make(chan struct{}), state: api.JobRunning}
	var stdin io.Reader
	if spec.Stdin || spec.Terminal != nil {
		r, w := io.Pipe()
		stdin, j.stdin = r, w
	}
	if spec.Terminal != nil {
		j.term = process.NewTerminal(spec.Terminal.Rows, spec.Terminal.Cols)
	}
	started := make(chan error, 1)
	go j.run(ctx, process.Options{Sandbox: sb, Confine: confine, Command: spec.Command, Dir: dir, Env: spec.Env,
		Stdin: stdin, Output: j.out, Grace: 500 * time.Millisecond, Terminal: j.term}, started)
	if err := <-started; err != nil {
		cancel()
		return nil, err
	}
	t.byID[j.id] = j
	t.order = append(t.order, j.id)
	t.evictLocked()
	return j, nil
}

// run runs the job to its end. started gets nil once the process runs,
// or the reason it could not start.
func (j *Job) run(ctx context.Context, o process.Options, started chan<- error) {
	defer close(j.done)
	defer j.cancel()
	o.OnStart = func() { started <- nil }
	res, err := process.Run(ctx, o)
	_ = j.out.Close()
	if j.stdin != nil {
		_ = j.stdin.CloseWithError(io.ErrClosedPipe)
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.ended = time.Now().UTC()
	switch {
	case err != nil:
		started <- err
		j.state, j.reason = api.JobFailed, err.Error()
	case res.Cancelled:
		j.state = api.JobKilled
	case res.Limit != "":
		j.state, j.reason = api.JobFailed, "stopped at "+res.Limit+" of the sandbox"
	default:
		j.state = api.JobExited
		code := res.ExitCode
		j.exit = &code
		if res.Signal != "" {
			j.reason = "killed by signal " + res.Signal
		}
	}
}

// evictLocked forgets the oldest finished jobs beyond the bound.
func (t *JobTable) evictLocked() {
	for len(t.order) > maxJobsKept {
		evicted := false
		for i, id := range t.order {
			if j := t.byID[id]; j.State() != api.JobRunning {
				_ = j.out.Remove()
				delete(t.byID, id)
				t.order = append(t.order[:i], t.order[i+1:]...)
				evicted = true
				break
			}
		}
		if !evicted {
			return
		}
	}
}

// CloseAll kills every job, waits for them to end and frees their
// output: the session ended.
func (t *JobTable) CloseAll() {
	t.mu.Lock()
	jobs := make([]*Job, 0, len(t.byID))
	for _, j := range t.byID {
		jobs = append(jobs, j)
	}
	t.mu.Unlock()
	for _, j := range jobs {
		j.Kill()
		<-j.done
		_ = j.out.Remove()
	}
}

// AnyRunning reports whether a job of the table is running.
func (t *JobTable) AnyRunning() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, j := range t.byID {
		if j.State() == api.JobRunning {
			return true
		}
	}
	return false
}

// Get finds a job by id.
func (t *JobTable) Get(id string) (*Job, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	j, ok := t.byID[id]
	return j, ok
}

// List lists the jobs, oldest first.
func (t *JobTable) List() []*Job {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]*Job, 0, len(t.order))
	for _, id := range t.order {
		out = append(out, t.byID[id])
	}
	return out
}

// ID is the job's id within its session.
func (j *Job) ID() string { return j.id }

// State is running, exited, killed or failed.
func (j *Job) State() api.JobState {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.state
}

// Done is closed when the job has ended.
func (j *Job) Done() <-chan struct{} { return j.done }

// Info is the job as clients see it.
func (j *Job) Info() api.Job {
	j.mu.Lock()
	defer j.mu.Unlock()
	info := api.Job{ID: j.id, Command: j.command, ToolUseID: j.toolUseID, State: j.state, StartedAt: j.started,
		ExitCode: j.exit, Reason: j.reason, OutputBytes: j.out.Size(), Stdin: j.stdin != nil}
	if j.term != nil {
		rows, cols := j.term.Size()
		info.Terminal = &api.TerminalSize{Rows: int(rows), Cols: int(cols)}
	}
	if !j.ended.IsZero() {
		ended := j.ended
		info.EndedAt = &ended
	}
	return info
}

// Kill ends the job and everything it started; it returns at once. A
// job's open standard input is closed first: the copy into the process
// would otherwise keep its Wait from returning.
func (j *Job) Kill() {
	if j.stdin != nil {
		_ = j.stdin.Close()
	}
	j.cancel()
}

// ErrNoStdin: the job was started without standard input open.
var ErrNoStdin = errors.New("the job was started without standard input (start it with tty or stdin)")

// ErrJobEnded: the job has ended, its input with it.
var ErrJobEnded = errors.New("the job has ended")

// Write sends input to the job's stdin (a job started with Stdin or a
// Terminal). It blocks while the command does not read.
func (j *Job) Write(p []byte) (int, error) {
	if j.stdin == nil {
		return 0, ErrNoStdin
	}
	n, err := j.stdin.Write(p)
	if errors.Is(err, io.ErrClosedPipe) {
		return n, ErrJobEnded
	}
	return n, err
}

// Resize changes the window of a job's terminal.
func (j *Job) Resize(rows, cols uint16) error {
	if j.term == nil {
		return errors.New("the job has no terminal")
	}
	return j.term.Resize(rows, cols)
}

// Read returns up to max bytes of output from offset from and the offset
// after them. Output beyond what is kept reads as the kept part's end.
func (j *Job) Read(from int64, max int) (string, int64, error) {
	if from < 0 {
		return "", 0, fmt.Errorf("negative offset %d", from)
	}
	// The size first: the output only grows, so that many bytes are a
	// consistent prefix.
	size := j.out.Size()
	if from >= size {
		return "", from, nil
	}
	max = int(min(int64(max), size-from))
	r, err := j.out.Open()
	if err != nil {
		return "", from, err
	}
	defer r.Close()
	if _, err := io.CopyN(io.Discard, r, from); err != nil {
		return "", from, nil // nothing beyond from yet
	}
	buf := make([]byte, max)
	n, err := io.ReadFull(r, buf)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return "", from, err
	}
	return string(buf[:n]), from + int64(n), nil
}

// ReadNew returns the output written since the previous ReadNew (Claude
// Code's BashOutput reads this way), at most max bytes.
func (j *Job) ReadNew(max int) (string, error) {
	j.mu.Lock()
	from := j.cursor
	j.mu.Unlock()
	s, next, err := j.Read(from, max)
	j.mu.Lock()
	if next > j.cursor {
		j.cursor = next
	}
	j.mu.Unlock()
	return s, err
}
