package nowait

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Arrivals tells whether input came for a listener's connections since
// it was last asked: bytes on an accepted connection, or a connection
// waiting to be accepted. The processor governor asks it between the
// rows of a long commit while GOMAXPROCS is one (internal/procs.Yield):
// the runtime looks for network input only once its run queues are
// empty, so a request that came during a commit would otherwise wait
// for the commit's end, or for the monitor thread's poll 10 ms later.
//
// It is an epoll instance of its own, beside the runtime's, with every
// descriptor watched edge-triggered (each arrival is reported once),
// read with a zero timeout through a raw system call: it cannot wait,
// and a look costs well under a microsecond. A connection leaves it
// when its descriptor closes. A nil Arrivals watches nothing and never
// reports.
type Arrivals struct{ epfd int }

// NewArrivals is an empty Arrivals, or nil when the kernel gives no
// epoll instance.
func NewArrivals() *Arrivals {
	fd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil
	}
	return &Arrivals{epfd: fd}
}

// Watch adds c's descriptor, when c has one (a syscall.Conn): a
// listener, a connection.
func (a *Arrivals) Watch(c any) {
	if a == nil {
		return
	}
	sc, ok := c.(syscall.Conn)
	if !ok {
		return
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return
	}
	_ = rc.Control(func(fd uintptr) {
		ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLET, Fd: int32(fd)}
		_ = unix.EpollCtl(a.epfd, unix.EPOLL_CTL_ADD, int(fd), &ev)
	})
}

// Arrived reports whether input came since the last call.
func (a *Arrivals) Arrived() bool {
	if a == nil {
		return false
	}
	var evs [8]unix.EpollEvent
	for {
		n, _, e := syscall.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(a.epfd), uintptr(unsafe.Pointer(&evs[0])),
			uintptr(len(evs)), 0, 0, 0)
		if e == syscall.EINTR {
			continue
		}
		return e == 0 && n > 0
	}
}

// Close releases the epoll instance.
func (a *Arrivals) Close() {
	if a != nil {
		_ = syscall.Close(a.epfd)
	}
}
