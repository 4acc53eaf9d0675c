package process

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// Terminal is a pseudo-terminal a run's command gets as its standard
// input, output and error, and as its controlling terminal (job control,
// Ctrl-C, programs that ask isatty). Its output is one stream, "stdout";
// its input comes from Options.Stdin. Give it to one run.
type Terminal struct {
	mu     sync.Mutex
	size   pty.Winsize
	master *os.File // the run's, while it runs
	ended  bool
}

// Default window size of a terminal asked for without one.
const (
	DefaultRows = 24
	DefaultCols = 80
)

// NewTerminal is a terminal of rows x cols characters (0 gives the
// default 24 x 80).
func NewTerminal(rows, cols uint16) *Terminal {
	t := &Terminal{}
	t.size = winsize(rows, cols)
	return t
}

func winsize(rows, cols uint16) pty.Winsize {
	if rows == 0 {
		rows = DefaultRows
	}
	if cols == 0 {
		cols = DefaultCols
	}
	return pty.Winsize{Rows: rows, Cols: cols}
}

// Resize changes the window size; the kernel tells the command's
// foreground process group (SIGWINCH). Before the run starts it sets the
// size the terminal opens with.
//
// readline reads the window size and writes it back as it prepares the
// terminal for each line: a resize that falls between the two is
// undone, and the shell keeps the old size until the next resize. So a
// resize looks again resizeRecheck later and, when the window is back
// at the size it had before (and nothing resized it since), sets it
// once more; a size the command set itself, any other, stays.
func (t *Terminal) Resize(rows, cols uint16) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ended {
		return errors.New("the terminal has closed: its command ended")
	}
	old, size := t.size, winsize(rows, cols)
	t.size = size
	if t.master == nil {
		return nil
	}
	if err := pty.Setsize(t.master, &size); err != nil {
		return err
	}
	if size != old {
		time.AfterFunc(resizeRecheck, func() { t.reassert(old, size) })
	}
	return nil
}

// resizeRecheck is how long after a resize it looks whether the window
// was set back: readline writes back what it read microseconds after.
// Tests lengthen it.
var resizeRecheck = 50 * time.Millisecond

// reassert sets the window to size again when it is back at old and
// size is still the last one asked for.
func (t *Terminal) reassert(old, size pty.Winsize) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ended || t.master == nil || t.size != size {
		return
	}
	if now, err := pty.GetsizeFull(t.master); err == nil && *now == old {
		_ = pty.Setsize(t.master, &size)
	}
}

// Size is the window size, rows and columns.
func (t *Terminal) Size() (rows, cols uint16) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.size.Rows, t.size.Cols
}

// open opens the pseudo-terminal at its size. The slave is for the
// child; the master stays with the terminal until close.
func (t *Terminal) open() (slave *os.File, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.master != nil || t.ended {
		return nil, errors.New("process: a terminal serves one run")
	}
	master, slave, err := pty.Open()
	if err != nil {
		return nil, err
	}
	if err := pty.Setsize(master, &t.size); err != nil {
		master.Close()
		slave.Close()
		return nil, err
	}
	t.master = master
	return slave, nil
}

// dupMaster is a new descriptor of the master, close-on-exec and
// non-blocking: the poll loop reads one, the input copy writes another
// (os.NewFile makes a non-blocking one pollable).
func (t *Terminal) dupMaster() (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var fd int
	var err error
	if cerr := controlFd(t.master, func(m uintptr) { fd, err = unix.FcntlInt(m, unix.F_DUPFD_CLOEXEC, 0) }); cerr != nil {
		return -1, cerr
	}
	if err != nil {
		return -1, os.NewSyscallError("fcntl", err)
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		_ = unix.Close(fd)
		return -1, os.NewSyscallError("fcntl", err)
	}
	return fd, nil
}

func controlFd(f *os.File, fn func(uintptr)) error {
	sc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	return sc.Control(fn)
}

// close closes the master: the run has ended.
func (t *Terminal) close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.ended = true
	if t.master != nil {
		_ = t.master.Close()
		t.master = nil
	}
}

// startWithTerminal starts cmd with the terminal's slave as its standard
// streams and controlling terminal (cmd.SysProcAttr has Setsid already).
// The master's output is read by the same poll loop as pipes, as stream
// "stdout"; stdin, when set, is copied to the master until it ends or the
// run does.
func startWithTerminal(cmd *exec.Cmd, start func(*exec.Cmd) error, k *sink, delay time.Duration, t *Terminal, slave *os.File, stdin io.Reader) (*pipes, error) {
	defer slave.Close() // the child holds its own copies
	p := &pipes{fds: [3]int{-1, -1, -1}}
	r, err := t.dupMaster()
	if err != nil {
		return nil, err
	}
	p.fds[0] = r
	p.streams[0] = &streamer{name: "stdout", sink: k, delay: delay}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr.Setctty, cmd.SysProcAttr.Ctty = true, 0 // the child's fd 0
	if err := start(cmd); err != nil {
		p.close()
		return nil, err
	}
	if stdin != nil {
		w, err := t.dupMaster()
		if err == nil {
			in := os.NewFile(uintptr(w), "ptmx")
			p.input = in
			go func() { _, _ = io.Copy(in, stdin) }()
		}
	}
	p.buf = readBuffers.Get().(*[]byte)
	return p, nil
}
