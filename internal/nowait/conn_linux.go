package nowait

import (
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"unsafe"
)

// Listener returns ln whose TCP connections read and write through
// raw system calls on their non-blocking sockets: a read or a write
// that would wait waits in the runtime's poller, as net's own do, with
// the connection's deadlines. Other connections pass unchanged. ln and
// every connection it accepts are watched by arrivals (which may be
// nil).
func Listener(ln net.Listener, arrivals *Arrivals) net.Listener {
	arrivals.Watch(ln)
	return listener{ln, arrivals}
}

type listener struct {
	net.Listener
	arrivals *Arrivals
}

func (l listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return c, err
	}
	l.arrivals.Watch(c)
	return Conn(c), nil
}

// Conn returns c reading and writing as Listener's connections do when
// c is a *net.TCPConn, else c itself.
func Conn(c net.Conn) net.Conn {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return c
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return c
	}
	r := &conn{TCPConn: tc, rc: rc}
	r.read.trap, r.read.fn = syscall.SYS_READ, r.read.syscall
	r.write.trap, r.write.fn = syscall.SYS_WRITE, r.write.syscall
	return r
}

// conn is a TCP connection whose Read and Write are raw. Every other
// method (deadlines, CloseWrite, ReadFrom's splice and sendfile) is the
// *net.TCPConn's own.
type conn struct {
	*net.TCPConn
	rc    syscall.RawConn
	read  transfer
	write transfer
}

// transfer is one direction's state. Its fn is made once, so that a
// call allocates no closure; mu keeps the buffer and the result to one
// Read (or Write) at a time, as net.Conn allows them concurrently.
type transfer struct {
	mu    sync.Mutex
	fn    func(fd uintptr) bool
	trap  uintptr // SYS_READ or SYS_WRITE
	buf   []byte
	done  int
	errno syscall.Errno
}

// syscall reads into, or writes from, buf[done:] once (a write: until
// all is written), and reports false to wait in the poller on EAGAIN.
func (t *transfer) syscall(fd uintptr) bool {
	for {
		rest := t.buf[t.done:]
		n, _, e := syscall.RawSyscall(t.trap, fd, uintptr(unsafe.Pointer(&rest[0])), uintptr(len(rest)))
		switch e {
		case 0:
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false
		default:
			t.errno = e
			return true
		}
		t.done += int(n)
		if t.trap == syscall.SYS_READ || n == 0 || t.done == len(t.buf) {
			return true
		}
	}
}

// do runs one transfer of p, as op: the bytes moved and the error net's
// own connection would have given.
func (c *conn) do(t *transfer, op string, p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf, t.done, t.errno = p, 0, 0
	var err error
	if t.trap == syscall.SYS_READ {
		err = c.rc.Read(t.fn)
	} else {
		err = c.rc.Write(t.fn)
	}
	n := t.done
	t.buf = nil
	if err == nil && t.errno != 0 {
		err = os.NewSyscallError(op, t.errno)
	}
	if err != nil {
		if oe, ok := err.(*net.OpError); ok { // the RawConn's own ("raw-read"): say it as net does
			err = oe.Err
		}
		return n, &net.OpError{Op: op, Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
	}
	switch {
	case t.trap == syscall.SYS_READ && n == 0:
		return 0, io.EOF
	case t.trap == syscall.SYS_WRITE && n < len(p):
		return n, io.ErrShortWrite
	}
	return n, nil
}

// Read reads as net.TCPConn.Read does.
func (c *conn) Read(p []byte) (int, error) { return c.do(&c.read, "read", p) }

// Write writes all of p as net.TCPConn.Write does.
func (c *conn) Write(p []byte) (int, error) { return c.do(&c.write, "write", p) }
