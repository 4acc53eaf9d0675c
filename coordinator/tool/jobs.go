package tool

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Limits of a session's background jobs.
const (
	maxJobsPerSession = 16
	// maxJobOutput bounds what a job keeps of each stream that nobody has
	// read yet; older output is dropped first.
	maxJobOutput = 1 << 20
)

// Jobs are a session's background processes, such as Claude Code's
// background shells: they outlive the call that started them, are read
// and stopped by later calls, and end with the session.
type Jobs struct {
	ctx  context.Context // the session's: deleting the session kills every job
	mu   sync.Mutex
	byID map[string]*Job
	seq  int
}

// NewJobs returns the job table of a session whose context is ctx.
func NewJobs(ctx context.Context) *Jobs { return &Jobs{ctx: ctx, byID: map[string]*Job{}} }

// Job is one background process and the output it wrote since it was last
// read.
type Job struct {
	ID      string
	Command string
	Started time.Time

	cancel context.CancelFunc
	done   chan struct{}

	mu       sync.Mutex
	unread   map[string][]byte // by stream: stdout, stderr
	dropped  int64
	exitCode int
	status   string // running, completed, failed, killed
}

// JobRun runs a job's process until ctx ends and reports its exit code;
// killed says the context ended it.
type JobRun func(ctx context.Context, j *Job) (exitCode int, err error)

// Start runs a job in the background. It fails when the session already
// has too many jobs running.
func (js *Jobs) Start(command string, run JobRun) (*Job, error) {
	if js == nil {
		return nil, fmt.Errorf("background jobs are not available here")
	}
	js.mu.Lock()
	running := 0
	for _, j := range js.byID {
		if j.Status() == JobRunning {
			running++
		}
	}
	if running >= maxJobsPerSession {
		js.mu.Unlock()
		return nil, Errorf("too_many_jobs", "%d background shells are running; kill one first.", running)
	}
	js.seq++
	ctx, cancel := context.WithCancel(js.ctx)
	j := &Job{ID: fmt.Sprintf("bash_%d", js.seq), Command: command, Started: time.Now(), cancel: cancel,
		done: make(chan struct{}), unread: map[string][]byte{}, status: JobRunning}
	js.byID[j.ID] = j
	js.mu.Unlock()
	go func() {
		defer close(j.done)
		defer cancel()
		code, err := run(ctx, j)
		j.mu.Lock()
		defer j.mu.Unlock()
		j.exitCode = code
		switch {
		case j.status == JobKilled:
		case err != nil || code != 0:
			j.status = JobFailed
			if err != nil {
				j.unread["stderr"] = append(j.unread["stderr"], err.Error()+"\n"...)
			}
		default:
			j.status = JobCompleted
		}
	}()
	return j, nil
}

// Job states.
const (
	JobRunning   = "running"
	JobCompleted = "completed"
	JobFailed    = "failed"
	JobKilled    = "killed"
)

// Get finds a job by id.
func (js *Jobs) Get(id string) (*Job, bool) {
	if js == nil {
		return nil, false
	}
	js.mu.Lock()
	defer js.mu.Unlock()
	j, ok := js.byID[id]
	return j, ok
}

// Write keeps a chunk of a job's output until it is read.
func (j *Job) Write(stream, chunk string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	b := append(j.unread[stream], chunk...)
	if over := len(b) - maxJobOutput; over > 0 {
		j.dropped += int64(over)
		b = append([]byte(nil), b[over:]...)
	}
	j.unread[stream] = b
}

// Status is the job's state now.
func (j *Job) Status() string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.status
}

// JobOutput is what a job wrote since it was last read, and its state.
type JobOutput struct {
	Stdout, Stderr string
	Status         string
	ExitCode       int
	Dropped        int64 // bytes lost because nobody read them in time
}

// ReadNew returns the output written since the last read and forgets it.
func (j *Job) ReadNew() JobOutput {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := JobOutput{Stdout: string(j.unread["stdout"]), Stderr: string(j.unread["stderr"]), Status: j.status, ExitCode: j.exitCode, Dropped: j.dropped}
	j.unread, j.dropped = map[string][]byte{}, 0
	return out
}

// Kill stops a running job and waits until its process is gone. It
// reports false when the job had already ended.
func (j *Job) Kill(ctx context.Context) bool {
	j.mu.Lock()
	running := j.status == JobRunning
	if running {
		j.status = JobKilled
	}
	j.mu.Unlock()
	j.cancel()
	select {
	case <-j.done:
	case <-ctx.Done():
	}
	return running
}

// Done is closed when the job's process has ended.
func (j *Job) Done() <-chan struct{} { return j.done }
