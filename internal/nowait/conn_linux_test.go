package nowait

import (
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// pair is a loopback TCP connection: its accepted end through Conn, and
// the dialled end as net makes it.
func pair(t *testing.T) (raw net.Conn, peer net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	peer, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c, err := Listener(ln, nil).Accept()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.(*conn); !ok {
		t.Fatalf("Accept gave a %T, not a raw connection", c)
	}
	t.Cleanup(func() { c.Close(); peer.Close() })
	return c, peer
}

// TestConnMovesEveryByte: both ways, more than the socket buffers hold,
// so reads and writes wait in the poller between raw calls.
func TestConnMovesEveryByte(t *testing.T) {
	c, peer := pair(t)
	c.SetDeadline(time.Now().Add(20 * time.Second))
	peer.SetDeadline(time.Now().Add(20 * time.Second))
	want := bytes.Repeat([]byte("0123456789abcdef"), 1<<20) // 16 MiB
	var wg sync.WaitGroup
	var gotByPeer, gotByRaw []byte
	var errs [4]error
	run := func(f func()) { wg.Add(1); go func() { defer wg.Done(); f() }() }
	run(func() { _, errs[0] = c.Write(want) })
	run(func() { gotByPeer, errs[1] = io.ReadAll(io.LimitReader(peer, int64(len(want)))) })
	run(func() { gotByRaw, errs[2] = io.ReadAll(io.LimitReader(c, int64(len(want)))) })
	run(func() { _, errs[3] = peer.Write(want) })
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("transfer %d: %v", i, err)
		}
	}
	if !bytes.Equal(gotByPeer, want) || !bytes.Equal(gotByRaw, want) {
		t.Fatalf("bytes differ: peer got %d, raw got %d of %d", len(gotByPeer), len(gotByRaw), len(want))
	}
}

// TestConnErrorsAsNet: the end of the stream, a deadline passed and a
// write to a closed peer answer as net's own connection does.
func TestConnErrorsAsNet(t *testing.T) {
	c, peer := pair(t)
	c.SetReadDeadline(time.Now().Add(-time.Second))
	_, err := c.Read(make([]byte, 8))
	var ne net.Error
	if !errors.Is(err, os.ErrDeadlineExceeded) || !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("read past its deadline: %v, want a timeout as net's", err)
	}
	var oe *net.OpError
	if !errors.As(err, &oe) || oe.Op != "read" {
		t.Fatalf("read past its deadline: %#v, want a net.OpError of op read", err)
	}
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	peer.Close()
	if n, err := c.Read(make([]byte, 8)); n != 0 || err != io.EOF {
		t.Fatalf("read after the peer closed: %d, %v; want 0, io.EOF", n, err)
	}
	c.SetWriteDeadline(time.Now().Add(10 * time.Second))
	block := make([]byte, 1<<16)
	for i := 0; ; i++ {
		_, err = c.Write(block)
		if err != nil {
			break
		}
		if i > 1000 {
			t.Fatal("writes to a closed peer never failed")
		}
	}
	if !errors.Is(err, syscall.EPIPE) && !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("write to a closed peer: %v, want EPIPE or ECONNRESET", err)
	}
	var se *os.SyscallError
	if !errors.As(err, &oe) || oe.Op != "write" || !errors.As(err, &se) || se.Syscall != "write" {
		t.Fatalf("write to a closed peer: %#v, want net's OpError over a SyscallError", err)
	}
}

// TestConnOtherKindsUnchanged: a connection not TCP is given back as is.
func TestConnOtherKindsUnchanged(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if Conn(a) != a {
		t.Fatal("a pipe was wrapped")
	}
}

// TestServesHTTP: net/http serves a sequence of requests with bodies on
// one kept-alive connection through Listener, and a large answer.
func TestServesHTTP(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", 4<<20)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.URL.Path == "/big" {
			io.WriteString(w, big)
			return
		}
		w.Write(bytes.ToUpper(body))
	}), ReadTimeout: 10 * time.Second, WriteTimeout: 10 * time.Second}
	go srv.Serve(Listener(ln, nil))
	defer srv.Close()
	client := &http.Client{Timeout: 10 * time.Second}
	for i := 0; i < 50; i++ {
		resp, err := client.Post("http://"+ln.Addr().String()+"/", "text/plain", strings.NewReader("call"))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(got) != "CALL" {
			t.Fatalf("answer %d: %q", i, got)
		}
	}
	resp, err := client.Get("http://" + ln.Addr().String() + "/big")
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || string(got) != big {
		t.Fatalf("large answer: %d bytes of %d, %v", len(got), len(big), err)
	}
}
