package typescript

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// cutProxy forwards TCP connections to toolgate and can cut them all: a
// dropped network, as a client sees it, without stopping toolgate. While
// cut it also refuses new connections (it accepts and closes them), so a
// client that reconnects at once cannot slip back in before the test has
// published what it must miss.
type cutProxy struct {
	ln     net.Listener
	target string

	mu    sync.Mutex
	cut   bool
	fail  bool // while cut, answer 503 instead of closing at once
	conns map[net.Conn]struct{}
}

// startProxy listens on a loopback port and forwards to target (host:port).
func startProxy(t *testing.T, target string) *cutProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	go p.accept()
	t.Cleanup(func() {
		ln.Close()
		p.Cut()
	})
	return p
}

// URL is the proxy's address as an http URL.
func (p *cutProxy) URL() string { return "http://" + p.ln.Addr().String() }

func (p *cutProxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.forward(c)
	}
}

func (p *cutProxy) forward(c net.Conn) {
	if !p.track(c) {
		p.mu.Lock()
		fail := p.fail
		p.mu.Unlock()
		if fail {
			_, _ = c.Write([]byte("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"))
		}
		c.Close()
		return
	}
	up, err := net.Dial("tcp", p.target)
	if err != nil || !p.track(up) {
		c.Close()
		if up != nil {
			up.Close()
		}
		return
	}
	done := make(chan struct{}, 2)
	pipe := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		done <- struct{}{}
	}
	go pipe(up, c)
	go pipe(c, up)
	<-done
	c.Close()
	up.Close()
	<-done
	p.untrack(c)
	p.untrack(up)
}

// track records an open connection; false while the proxy is cut.
func (p *cutProxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cut {
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *cutProxy) untrack(c net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.conns, c)
}

// Cut closes every forwarded connection and refuses new ones until Restore.
func (p *cutProxy) Cut() { p.cutting(false) }

// CutFailing is Cut, but new connections get a 503 answer, as from a
// proxy whose upstream is down: a browser's EventSource gives up on it.
func (p *cutProxy) CutFailing() { p.cutting(true) }

func (p *cutProxy) cutting(fail bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut, p.fail = true, fail
	for c := range p.conns {
		c.Close()
		delete(p.conns, c)
	}
}

// Restore lets connections through again.
func (p *cutProxy) Restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = false
}

// controlServer lets a Node test cut and restore the proxy:
// POST /cut, POST /restore.
func controlServer(t *testing.T, p *cutProxy) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("POST /cut", func(w http.ResponseWriter, r *http.Request) { p.Cut() })
	mux.HandleFunc("POST /restore", func(w http.ResponseWriter, r *http.Request) { p.Restore() })
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)
	return hs.URL
}
