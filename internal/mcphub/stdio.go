package mcphub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// stdioTransport is go-sdk's mcp.CommandTransport (v1.8.0, mcp/cmd.go and
// the ioConn of mcp/transport.go) without its batch probe and with its
// message decoding done by decodeMessage: ioConn decodes every inbound
// message once as a JSON array, then as a message, and each decode
// allocates a 32 KB buffer (go-sdk's internal/json over segmentio's
// decoder), half the bytes an MCP call allocated. Framing, the frame
// limit, message encoding and the shutdown sequence are go-sdk's. A batch
// (a JSON array) ends the connection, as go-sdk's ioConn does once the
// protocol version is 2025-06-18 or later; toolgate's client never sends
// one. Speed only: BenchmarkMCPThroughToolgate (server) defends it (a hub
// call 118-143 µs of CPU instead of 156-197; docs/benchmarks.md).
type stdioTransport struct {
	cmd *exec.Cmd
	// terminate is how long Close waits for the process after closing
	// its stdin before SIGTERM, and after SIGTERM before SIGKILL.
	terminate time.Duration
}

func (t *stdioTransport) Connect(context.Context) (mcp.Connection, error) {
	stdout, err := t.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stdin, err := t.cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := t.cmd.Start(); err != nil {
		return nil, err
	}
	c := &stdioConn{cmd: t.cmd, stdin: stdin, terminate: t.terminate, incoming: make(chan stdioMsg), closed: make(chan struct{})}
	go c.readLoop(&frameLimit{r: stdout, limit: mcp.DefaultMaxLineLength})
	return c, nil
}

type stdioMsg struct {
	msg jsonrpc.Message
	err error
}

// stdioConn is one connection to a stdio server's process.
type stdioConn struct {
	cmd       *exec.Cmd
	stdin     io.WriteCloser
	terminate time.Duration
	writeMu   sync.Mutex
	incoming  chan stdioMsg
	closed    chan struct{}
	closeOnce sync.Once
	closeErr  error
}

var errBatch = errors.New("JSON-RPC batching is not supported")

// readLoop decodes the server's output as ioConn does: one JSON value
// after another, each followed by a newline (or nothing), until an error,
// which it hands on last.
func (c *stdioConn) readLoop(r *frameLimit) {
	dec := json.NewDecoder(r)
	for {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if err == nil {
			var tr [1]byte
			if n, readErr := dec.Buffered().Read(tr[:]); n > 0 {
				if tr[0] != '\n' && tr[0] != '\r' {
					err = errors.New("invalid trailing data at the end of stream")
				}
			} else if readErr != nil && readErr != io.EOF {
				err = readErr
			}
		}
		var m stdioMsg
		switch {
		case err != nil:
			m.err = err
		case len(raw) > 0 && raw[0] == '[':
			m.err = errBatch
		default:
			m.msg, m.err = decodeMessage(raw)
		}
		select {
		case c.incoming <- m:
		case <-c.closed:
			return
		}
		if m.err != nil {
			return
		}
		r.count = 0
	}
}

func (c *stdioConn) SessionID() string { return "" }

func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	default:
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case m := <-c.incoming:
		return m.msg, m.err
	case <-c.closed:
		return nil, io.EOF
	}
}

func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	default:
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("marshaling message: %v", err)
	}
	data = append(data, '\n') // newline delimited
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err = c.stdin.Write(data)
	return err
}

func (c *stdioConn) Close() error {
	c.closeOnce.Do(func() {
		c.closeErr = c.stop()
		close(c.closed)
	})
	return c.closeErr
}

// stop is go-sdk's pipeRWC.Close, the MCP spec's stdio shutdown: close
// the server's stdin, wait for it to exit, then SIGTERM, then SIGKILL,
// waiting the same time after each.
func (c *stdioConn) stop() error {
	if err := c.stdin.Close(); err != nil {
		return fmt.Errorf("closing stdin: %v", err)
	}
	res := make(chan error, 1)
	go func() { res <- c.cmd.Wait() }()
	wait := func() (error, bool) {
		select {
		case err := <-res:
			return err, true
		case <-time.After(c.terminate):
			return nil, false
		}
	}
	if err, ok := wait(); ok {
		return err
	}
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err == nil {
		if err, ok := wait(); ok {
			return err
		}
	}
	if err := c.cmd.Process.Kill(); err != nil {
		return err
	}
	if err, ok := wait(); ok {
		return err
	}
	return errors.New("unresponsive subprocess")
}

// frameLimit bounds the bytes read for one message, as go-sdk's
// frameLimitReader does.
type frameLimit struct {
	r     io.Reader
	limit int
	count int
}

var errFrameTooLarge = errors.New("inbound JSON-RPC frame exceeded the configured maximum line length")

func (r *frameLimit) Read(p []byte) (int, error) {
	if r.count >= r.limit {
		return 0, errFrameTooLarge
	}
	if len(p) > r.limit-r.count {
		p = p[:r.limit-r.count]
	}
	n, err := r.r.Read(p)
	r.count += n
	return n, err
}

// decodeMessage is jsonrpc.DecodeMessage (go-sdk internal/jsonrpc2
// DecodeMessage) without go-sdk's 32 KB decoder buffer: the same message
// or a refusal for the same input. Keys match exactly, as go-sdk's
// decoder is told to (DontMatchCaseInsensitiveStructFields), so the
// members are read into maps rather than structs, which encoding/json
// would match whatever their case.
func decodeMessage(data []byte) (jsonrpc.Message, error) {
	var w map[string]json.RawMessage
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, fmt.Errorf("unmarshaling jsonrpc message: %w", err)
	}
	var version string
	var idv any
	if err := errors.Join(member(w, "jsonrpc", &version), member(w, "id", &idv)); err != nil {
		return nil, err
	}
	if version != "2.0" {
		return nil, fmt.Errorf("invalid message version tag %q; expected %q", version, "2.0")
	}
	id, err := jsonrpc.MakeID(idv)
	if err != nil {
		return nil, err
	}
	if _, ok := w["method"]; ok {
		var method string
		if err := member(w, "method", &method); err != nil {
			return nil, err
		}
		return &jsonrpc.Request{Method: method, ID: id, Params: w["params"]}, nil
	}
	if !id.IsValid() {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "invalid request"}
	}
	resp := &jsonrpc.Response{ID: id, Result: w["result"]}
	if raw, ok := w["error"]; ok && string(raw) != "null" {
		var e map[string]json.RawMessage
		if err := json.Unmarshal(raw, &e); err != nil {
			return nil, fmt.Errorf("unmarshaling jsonrpc message: %w", err)
		}
		we := &jsonrpc.Error{Data: e["data"]}
		if err := errors.Join(member(e, "code", &we.Code), member(e, "message", &we.Message)); err != nil {
			return nil, err
		}
		resp.Error = we
	}
	return resp, nil
}

// member decodes the member key of an object into dst, when it is there.
func member(obj map[string]json.RawMessage, key string, dst any) error {
	v, ok := obj[key]
	if !ok {
		return nil
	}
	if err := json.Unmarshal(v, dst); err != nil {
		return fmt.Errorf("unmarshaling jsonrpc message: %w", err)
	}
	return nil
}
