package server

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/internal/benchpair"
)

// TestAnswerHeadersOnTheWire: a read's answer, as net/http writes it on
// a connection, is the same bytes with the headers set by
// setJSONHeaders and the body closed after decode as with the header
// values set as before and net/http left to write the Date and to drain
// the body, but for the Date's value, which is the time's; and the
// connection still carries the next request.
func TestAnswerHeadersOnTheWire(t *testing.T) {
	fast, plain := newAnswerWire(t)
	located := strings.Replace(answerWireRequest, "toolu_0123456789", answerWireLocated, 1)
	in := []byte(readRequest("", answerWireRequest) +
		readRequest("Origin: http://127.0.0.1:7420\r\n", answerWireRequest) + // CORS: a Vary header, after the Date
		readRequest("", located) + // a Location header, after the Date
		readRequest("", `{"type":"tool_use"`) + // an error's answer
		readRequest("", answerWireRequest))
	const requests = 5
	got, want := fast.serve(in), plain.serve(in)
	date := regexp.MustCompile(`\r\nDate: ([^\r]*)\r\n`)
	for _, d := range date.FindAllSubmatch(got, -1) {
		if _, err := time.Parse(http.TimeFormat, string(d[1])); err != nil {
			t.Errorf("Date %q: %v", d[1], err)
		}
	}
	norm := func(b []byte) string { return date.ReplaceAllString(string(b), "\r\nDate: x\r\n") }
	if norm(got) != norm(want) {
		t.Fatalf("answers differ:\n%s\nwant:\n%s", got, want)
	}
	if n := strings.Count(norm(got), "\r\nDate: x\r\n"); n != requests {
		t.Fatalf("%d answers on the connection, want %d:\n%s", n, requests, got)
	}
	for _, h := range []string{"\r\nVary: Origin\r\n", "\r\nLocation: /v1/sessions/x\r\n", "HTTP/1.1 400 "} {
		if !strings.Contains(string(got), h) {
			t.Errorf("no %q among the answers:\n%s", h, got)
		}
	}
}

// BenchmarkAnswerHeaders: what net/http does with a read answer's
// headers and its request's body, with the headers set by setJSONHeaders
// and the body closed once decode read it (fast), against the headers
// set with Header.Set, net/http formatting the Date and reading the rest
// of the body before it writes the header (plain). part=headers: the
// headers set, copied (Header.Clone, as net/http's WriteHeader does) and
// written (Header.WriteSubset, then the Date net/http adds when the
// handler set none). part=body: a small request's body (http.ReadRequest) read
// to the end, then closed (timed alone, call by call), or copied to io.Discard as net/http
// does with a body not closed (io.CopyN, maxPostHandlerReadBytes+1) and
// closed. part=wire: 32 pipelined requests on a connection in memory,
// served through the front (decode, encode), the whole of which the two
// parts are a small share. ratio is fast's time over plain's.
//
//	go test -run '^$' -bench AnswerHeaders ./server/
func BenchmarkAnswerHeaders(b *testing.B) {
	b.Run("part=headers", func(b *testing.B) {
		bw := bufio.NewWriter(io.Discard)
		var dateBuf [len(http.TimeFormat) + 2]byte
		const n = 2143
		benchpair.Run(b, func() {
			h := make(http.Header)
			setJSONHeaders(h, n)
			_ = h.Clone().WriteSubset(bw, nil)
			bw.Reset(io.Discard)
		}, func() {
			h := make(http.Header)
			h.Set("Content-Type", "application/json")
			h.Set("Content-Length", strconv.Itoa(n))
			_ = h.Clone().WriteSubset(bw, nil)
			if _, ok := h["Date"]; !ok {
				_, _ = bw.WriteString("Date: ")
				_, _ = bw.Write(time.Now().UTC().AppendFormat(dateBuf[:0], http.TimeFormat))
				_, _ = bw.WriteString("\r\n")
			}
			bw.Reset(io.Discard)
		})
	})
	b.Run("part=body", func(b *testing.B) {
		in := []byte("POST / HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}")
		br := bufio.NewReader(nil)
		read := func() io.ReadCloser {
			br.Reset(bytes.NewReader(in))
			r, err := http.ReadRequest(br)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := io.Copy(io.Discard, r.Body); err != nil {
				b.Fatal(err)
			}
			return r.Body
		}
		// The request is read outside the time: it would bury the
		// difference. Each call is timed alone, the two taking turns.
		var tf, tp time.Duration
		for range b.N {
			body := read()
			t := time.Now()
			_ = body.Close()
			tf += time.Since(t)
			body = read()
			t = time.Now()
			if _, err := io.CopyN(io.Discard, body, 256<<10+1); err == io.EOF {
				_ = body.Close()
			}
			tp += time.Since(t)
		}
		b.ReportMetric(float64(tf.Nanoseconds())/float64(b.N), "fast_ns/op")
		b.ReportMetric(float64(tp.Nanoseconds())/float64(b.N), "plain_ns/op")
		b.ReportMetric(float64(tf)/float64(tp), "ratio")
	})
	b.Run("part=wire", func(b *testing.B) {
		fast, plain := newAnswerWire(b)
		in := pipelined(32)
		benchpair.Run(b, func() { fast.serveDiscarding(in) }, func() { plain.serveDiscarding(in) })
	})
}

// answerWire is an http.Server answering read_file blocks, fed
// connections in memory.
type answerWire struct {
	conns     chan net.Conn
	done      chan struct{}
	closeOnce sync.Once
}

func newAnswerWire(tb testing.TB) (fast, plain *answerWire) {
	s := &Server{
		logger:  slog.New(slog.NewJSONHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelWarn})),
		metrics: newHTTPMetrics(prometheus.NewRegistry(), "bench"),
		cfg:     Config{ReadTimeout: coordinator.Duration(time.Minute), MaxBodyBytes: 16 << 20},
	}
	var text strings.Builder
	for i := range 64 {
		fmt.Fprintf(&text, "%d | 0123456789abcde\n", i+1)
	}
	at := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	answer := func(use api.ToolUse) api.ToolUseResponse {
		return api.ToolUseResponse{Result: api.NewToolResult(use.ID, text.String(), false),
			Call: api.CallRecord{ToolUseID: use.ID, Name: use.Name, State: api.StateDone, Status: api.StatusSucceeded, StartedAt: &at, DurationMS: 0.412}}
	}
	start := func(route http.HandlerFunc) *answerWire {
		mux := chi.NewRouter()
		mux.Use(s.front)
		mux.Post("/v1/tool_use", route)
		aw := &answerWire{conns: make(chan net.Conn), done: make(chan struct{})}
		srv := &http.Server{Handler: mux}
		go func() { _ = srv.Serve(aw) }()
		tb.Cleanup(func() { _ = srv.Close() })
		return aw
	}
	fast = start(func(w http.ResponseWriter, r *http.Request) {
		var use api.ToolUse
		if err := s.decode(w, r, &use); err != nil {
			s.writeError(w, r, err)
			return
		}
		if use.ID == answerWireLocated {
			w.Header().Set("Location", "/v1/sessions/x")
		}
		s.encode(w, r, http.StatusOK, answer(use))
	})
	plain = start(func(w http.ResponseWriter, r *http.Request) {
		var use api.ToolUse
		if err := s.decodeBefore(w, r, &use); err != nil {
			s.writeError(w, r, err)
			return
		}
		if use.ID == answerWireLocated {
			w.Header().Set("Location", "/v1/sessions/x")
		}
		s.encodeBefore(w, r, http.StatusOK, answer(use))
	})
	return fast, plain
}

const (
	answerWireRequest = `{"type":"tool_use","id":"toolu_0123456789","name":"read_file","input":{"path":"one_kb.txt"}}`
	// answerWireLocated is the id of a call whose answer also carries a
	// Location header.
	answerWireLocated = "toolu_located"
)

// serve sends in on a new connection and returns what the server wrote
// on it once it is closed.
func (aw *answerWire) serve(in []byte) []byte {
	c := &memConn{in: bytes.NewReader(in), out: new(bytes.Buffer), closed: make(chan struct{})}
	aw.conns <- c
	<-c.closed
	return c.out.Bytes()
}

// serveDiscarding is serve with what the server writes counted only.
func (aw *answerWire) serveDiscarding(in []byte) {
	c := &memConn{in: bytes.NewReader(in), closed: make(chan struct{})}
	aw.conns <- c
	<-c.closed
}

// pipelined is n read requests one after the other.
func pipelined(n int) []byte {
	var in []byte
	for range n {
		in = append(in, readRequest("", answerWireRequest)...)
	}
	return in
}

// readRequest is a request posting body, with the header lines extra.
func readRequest(extra, body string) string {
	return fmt.Sprintf("POST /v1/tool_use HTTP/1.1\r\nHost: 127.0.0.1:7420\r\nUser-Agent: bench\r\nContent-Type: application/json\r\nContent-Length: %d\r\nAccept: */*\r\n%s\r\n%s",
		len(body), extra, body)
}

// Accept, Close and Addr make answerWire the server's listener.
func (aw *answerWire) Accept() (net.Conn, error) {
	select {
	case c := <-aw.conns:
		return c, nil
	case <-aw.done:
		return nil, net.ErrClosed
	}
}
func (aw *answerWire) Close() error {
	aw.closeOnce.Do(func() { close(aw.done) })
	return nil
}
func (aw *answerWire) Addr() net.Addr { return memAddr{} }

// memConn is a connection whose client sent in and reads nothing back
// until the server closes it.
type memConn struct {
	in        *bytes.Reader
	out       *bytes.Buffer // nil: discarded
	closeOnce sync.Once
	closed    chan struct{}
}

func (c *memConn) Read(p []byte) (int, error) { return c.in.Read(p) }
func (c *memConn) Write(p []byte) (int, error) {
	if c.out == nil {
		return len(p), nil
	}
	return c.out.Write(p)
}
func (c *memConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}
func (c *memConn) LocalAddr() net.Addr              { return memAddr{} }
func (c *memConn) RemoteAddr() net.Addr             { return memAddr{} }
func (c *memConn) SetDeadline(time.Time) error      { return nil }
func (c *memConn) SetReadDeadline(time.Time) error  { return nil }
func (c *memConn) SetWriteDeadline(time.Time) error { return nil }

type memAddr struct{}

func (memAddr) Network() string { return "mem" }
func (memAddr) String() string  { return "127.0.0.1:7420" }

// encodeBefore is encode as it was before setJSONHeaders: the baseline
// of BenchmarkAnswerHeaders.
func (s *Server) encodeBefore(w http.ResponseWriter, r *http.Request, status int, v any) {
	eb, _ := s.encodeBufs.Get().(*encodeBuffer)
	if eb == nil {
		eb = newEncodeBuffer()
	}
	defer s.putEncodeBuffer(eb)
	if err := eb.encode(v); err != nil {
		panic(err)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(eb.buf.Len()))
	w.WriteHeader(status)
	_, _ = w.Write(eb.buf.Bytes())
}

// decodeBefore is decode as it was before it closed the body it read:
// the baseline of BenchmarkAnswerHeaders.
func (s *Server) decodeBefore(w http.ResponseWriter, r *http.Request, v any) error {
	buf := s.bodyBuffer()
	defer s.putBodyBuffer(buf)
	if n := r.ContentLength; n > 0 && n <= s.cfg.MaxBodyBytes {
		buf.Grow(int(n) + bytes.MinRead)
	}
	if _, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes)); err != nil {
		return decodeError(err)
	}
	if decodeFast(buf.Bytes(), v) {
		return nil
	}
	dec := slowDecoder(buf.Bytes(), v)
	if err := dec.Decode(v); err != nil {
		return decodeError(err)
	}
	return endOfBody(dec)
}
