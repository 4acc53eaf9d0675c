//go:build linux

package procs

import (
	"crypto/sha256"
	"net"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/nowait"
	"github.com/toolgate/toolgate/internal/testwait"
)

// governLowered makes a governor of the real runtime current, with
// GOMAXPROCS at one as serve's is between one caller's light calls,
// until the test ends.
func governLowered(t testing.TB) {
	def := runtime.GOMAXPROCS(0)
	g := newGovernor(func() { runtime.GOMAXPROCS(1) }, func() { runtime.GOMAXPROCS(def) }, time.Hour)
	if !current.CompareAndSwap(nil, g) {
		t.Fatal("a governor runs already")
	}
	g.lower()
	g.lowered.Store(true)
	t.Cleanup(func() {
		current.CompareAndSwap(g, nil)
		g.restore()
	})
}

// commitRows runs up to max rows of work, each followed by Yield as the
// store's commit does, counting them in n, until stop closes. It
// signals ready after its tenth row.
func commitRows(n *atomic.Int64, max int64, stop, ready chan struct{}) {
	buf := make([]byte, 64<<10)
	for n.Load() < max {
		select {
		case <-stop:
			return
		default:
		}
		sum := sha256.Sum256(buf) // a row's CPU: tens of microseconds
		buf[0] = sum[0]
		if n.Add(1) == 10 {
			close(ready)
		}
		Yield()
	}
}

// connPair is a connection accepted through nowait's listener, watched
// by arrivals, and its client's end.
func connPair(t testing.TB, arrivals *nowait.Arrivals) (server, client net.Conn) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	server, err = nowait.Listener(ln, arrivals).Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { server.Close() })
	return server, client
}

// TestYieldLetsInputIn: with GOMAXPROCS at one, a byte that comes on a
// watched connection while a long loop yields between its rows is read
// within a row or two of its coming; Gosched alone would leave its
// reader in the network poller until the loop's end or the monitor
// thread's poll, many rows later.
func TestYieldLetsInputIn(t *testing.T) {
	arrivals := nowait.NewArrivals()
	if arrivals == nil {
		t.Skip("no epoll instance")
	}
	defer arrivals.Close()
	server, client := connPair(t, arrivals)
	governLowered(t)
	WatchInput(arrivals.Arrived)

	var rows atomic.Int64
	served := make(chan int64, 1)
	go func() {
		var b [1]byte
		if _, err := server.Read(b[:]); err == nil {
			served <- rows.Load()
		}
	}()
	stop, ready, ended := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ended)
		commitRows(&rows, 20000, stop, ready)
	}()
	testwait.Receive(t, ready)
	sent := rows.Load()
	if _, err := client.Write([]byte{1}); err != nil {
		t.Fatal(err)
	}
	got := testwait.Receive(t, served)
	close(stop)
	testwait.Receive(t, ended)
	if got-sent > 3 {
		t.Errorf("the byte was read %d rows after it came (row %d, then %d); want at most 3", got-sent, sent, got)
	}
}

// BenchmarkYieldToInput: one-byte round trips on a connection while a
// loop of rows of tens of microseconds yields between them, GOMAXPROCS
// at one: yield=gosched as Yield did before it watched input (each trip
// waits for the monitor thread's poll of the network), yield=input as
// it does now. It reports the trips' p99 beside their mean.
func BenchmarkYieldToInput(b *testing.B) {
	for _, mode := range []string{"gosched", "input"} {
		b.Run("yield="+mode, func(b *testing.B) {
			arrivals := nowait.NewArrivals()
			if arrivals == nil {
				b.Skip("no epoll instance")
			}
			defer arrivals.Close()
			server, client := connPair(b, arrivals)
			if mode == "input" {
				arrivals.Watch(client) // the answer, back to the client, is input too
			}
			governLowered(b)
			if mode == "input" {
				WatchInput(arrivals.Arrived)
			}
			go func() {
				var c [1]byte
				for {
					if _, err := server.Read(c[:]); err != nil {
						return
					}
					if _, err := server.Write(c[:]); err != nil {
						return
					}
				}
			}()
			var rows atomic.Int64
			stop, ready, ended := make(chan struct{}), make(chan struct{}), make(chan struct{})
			go func() {
				defer close(ended)
				commitRows(&rows, 1<<62, stop, ready)
			}()
			select {
			case <-ready:
			case <-time.After(10 * time.Second):
				b.Fatal("the loop never ran its first rows")
			}
			// A trip that never comes back fails instead of hanging.
			if err := client.SetDeadline(time.Now().Add(time.Minute)); err != nil {
				b.Fatal(err)
			}
			trips := make([]time.Duration, 0, b.N)
			var c [1]byte
			b.ResetTimer()
			for range b.N {
				start := time.Now()
				if _, err := client.Write(c[:]); err != nil {
					b.Fatal(err)
				}
				if _, err := client.Read(c[:]); err != nil {
					b.Fatal(err)
				}
				trips = append(trips, time.Since(start))
			}
			b.StopTimer()
			close(stop)
			<-ended
			slices.Sort(trips)
			b.ReportMetric(float64(trips[len(trips)*99/100].Microseconds()), "p99-µs")
		})
	}
}

// TestWatchInputNilForgets: after WatchInput(nil), Yield no longer asks
// what it was given (closed by then), and yields without it.
func TestWatchInputNilForgets(t *testing.T) {
	governLowered(t)
	asked := 0
	WatchInput(func() bool { asked++; return false })
	Yield()
	WatchInput(nil)
	Yield()
	if asked != 1 {
		t.Errorf("asked %d times; want once, before it was forgotten", asked)
	}
}
