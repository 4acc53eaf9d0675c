package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/toolgate/toolgate/internal/sandbox/helper"
)

// The hand-over of a run's command to its sandbox started ahead of time,
// over the helper's control socket (helper/await.go).

// Offer gives a run that goes to a sandbox started ahead of time its
// command (handOver) before the run may start: the helper readies it
// while the caller still waits, for the call's start record to be on
// disk (helper/take.go), and starts it only once Start says so. Other
// runs are left as they are. A run offered is started or finished like
// any other; one finished unstarted never runs.
func (p *Prepared) Offer(cmd *exec.Cmd) error {
	if p == nil || p.warm == nil || p.offered {
		return nil
	}
	if err := p.handOver(cmd); err != nil {
		p.warm.stop()
		return err
	}
	p.offered = true
	return nil
}

// goAhead tells the helper of a run offered to start its command, and
// has the next command's cgroups made for a sandbox the session may keep.
func (p *Prepared) goAhead() error {
	w := p.warm
	_ = w.conn.SetDeadline(time.Now().Add(warmWait))
	if _, err := w.conn.Write(goMessage); err != nil {
		return fmt.Errorf("sandbox: start the command handed over: %w", err)
	}
	if err := w.started(); err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	if p.box != nil {
		w.nextLimits = make(chan *runLimits, 1)
		go w.sendNext(p.box.cgroups) // reuse.go
	}
	return nil
}

// goMessage is the helper's Request that starts the command offered.
var goMessage, _ = json.Marshal(helper.Request{Go: true}) // plain data: cannot fail

// handOver gives the run's command to its sandbox started ahead of time:
// cmd's environment and standard streams (files or nil; other readers are
// copied through a pipe), with the argv and directory prepared. The
// helper starts it at goAhead.
func (p *Prepared) handOver(cmd *exec.Cmd) error {
	w := p.warm
	var streams, ours []*os.File
	defer func() {
		for _, f := range ours {
			_ = f.Close()
		}
	}()
	devNull := func(flag int) (*os.File, error) {
		f, err := os.OpenFile(os.DevNull, flag, 0)
		if err == nil {
			ours = append(ours, f)
		}
		return f, err
	}
	switch in := cmd.Stdin.(type) {
	case nil:
		f, err := devNull(os.O_RDONLY)
		if err != nil {
			return err
		}
		streams = append(streams, f)
	case *os.File:
		streams = append(streams, in)
	default:
		r, pw, err := os.Pipe()
		if err != nil {
			return err
		}
		ours = append(ours, r)
		streams = append(streams, r)
		go func() {
			// Ends when the input is all written or the command's side
			// of the pipe is closed.
			_, _ = io.Copy(pw, in)
			_ = pw.Close()
		}()
	}
	for _, out := range []io.Writer{cmd.Stdout, cmd.Stderr} {
		switch o := out.(type) {
		case nil:
			f, err := devNull(os.O_WRONLY)
			if err != nil {
				return err
			}
			streams = append(streams, f)
		case *os.File:
			streams = append(streams, o)
		default:
			return errors.New("sandbox: a run handed to a sandbox started ahead of time needs files for its output")
		}
	}
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	b, err := json.Marshal(helper.Request{Argv: p.command, Env: env, Dir: p.dir, Reuse: p.box != nil})
	if err != nil {
		return err
	}
	fds := make([]int, len(streams))
	for i, f := range streams {
		fds[i] = int(f.Fd())
	}
	_ = w.conn.SetDeadline(time.Now().Add(warmWait))
	if _, _, err := w.conn.WriteMsgUnix(b, syscall.UnixRights(fds...), nil); err != nil {
		return fmt.Errorf("sandbox: hand the command over: %w", err)
	}
	return nil
}

// started reads the helper's answer to the command handed over: that it
// started it, or why it did not.
func (w *warm) started() error {
	r, err := w.read()
	switch {
	case errors.Is(err, io.EOF):
		return errors.New("the sandbox helper ended before it started the command")
	case err != nil:
		return err
	case r.Error != "":
		return errors.New(r.Error)
	case !r.Started:
		return errors.New("the sandbox helper answered without starting the command")
	}
	return nil
}

// read reads one Reply from the helper.
func (w *warm) read() (helper.Reply, error) {
	buf := make([]byte, 4<<10)
	n, err := w.conn.Read(buf)
	if err != nil {
		return helper.Reply{}, err
	}
	var r helper.Reply
	if err := json.Unmarshal(buf[:n], &r); err != nil {
		return helper.Reply{}, fmt.Errorf("bad reply from the sandbox helper: %w", err)
	}
	return r, nil
}
