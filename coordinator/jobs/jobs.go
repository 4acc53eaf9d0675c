package jobs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
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

// Table is a session's jobs; it implements tool.Jobs.
type Table struct {
	ctx   context.Context // the session's: ending it ends the jobs
	mu    sync.Mutex
	next  int
	byID  map[string]*Job
	order []string
}

// A Table is the Jobs a call's Runtime carries.
var _ tool.Jobs = (*Table)(nil)

// NewTable is an empty table whose jobs end when ctx does.
func NewTable(ctx context.Context) *Table {
	return &Table{ctx: ctx, byID: map[string]*Job{}}
}

// Forget drops an ended job and frees its output.
func (t *Table) Forget(id string) {
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

// Start starts a job for the call toolUseID in dir (absolute), confined
// by sb as confine says (a nil sb runs it unconfined).
func (t *Table) Start(toolUseID string, spec tool.JobSpec, dir string, sb *sandbox.Sandbox, confine sandbox.Run) (tool.Job, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ctx.Err() != nil {
		return nil, tool.Errorf(api.ToolCodeFailed, "the session has ended")
	}
	running := 0
	for _, j := range t.byID {
		if j.State() == api.JobRunning {
			running++
		}
	}
	if running >= maxRunningJobs {
		return nil, tool.Errorf(api.ToolCodeFailed, "this session already has %d background jobs running; kill one first", running)
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
	go j.run(ctx, process.Options{Sandbox: sb, Confine: confine, Command: spec.Command, Shell: spec.Shell, Dir: dir, Env: spec.Env,
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
func (t *Table) evictLocked() {
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
func (t *Table) CloseAll() {
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
func (t *Table) AnyRunning() bool {
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
func (t *Table) Get(id string) (tool.Job, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	j, ok := t.byID[id]
	if !ok {
		return nil, false
	}
	return j, true
}

// List lists the jobs, oldest first.
func (t *Table) List() []tool.Job {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]tool.Job, 0, len(t.order))
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

// Write sends input to the job's stdin (a job started with Stdin or a
// Terminal). It blocks while the command does not read.
func (j *Job) Write(p []byte) (int, error) {
	if j.stdin == nil {
		return 0, tool.ErrNoStdin
	}
	n, err := j.stdin.Write(p)
	if errors.Is(err, io.ErrClosedPipe) {
		return n, tool.ErrJobEnded
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

// ReadNewEnds returns the output written since the previous read, whole
// when it is at most 2*half bytes, else its first and last half bytes
// and how many bytes between them it leaves out (Codex's unified exec
// keeps a command's output so). The next read starts after it.
func (j *Job) ReadNewEnds(half int) (head, tail string, omitted int64, err error) {
	j.mu.Lock()
	from := j.cursor
	j.mu.Unlock()
	size := j.out.Size()
	if size-from <= int64(2*half) {
		head, err = j.ReadNew(2 * half)
		return head, "", 0, err
	}
	if head, _, err = j.Read(from, half); err != nil {
		return "", "", 0, err
	}
	if tail, _, err = j.Read(size-int64(half), half); err != nil {
		return "", "", 0, err
	}
	j.mu.Lock()
	j.cursor = max(j.cursor, size)
	j.mu.Unlock()
	return head, tail, size - from - int64(len(head)) - int64(len(tail)), nil
}
