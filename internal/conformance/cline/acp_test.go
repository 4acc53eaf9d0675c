package cline

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
)

// acpClient is the least Agent Client Protocol client that drives
// `cline --acp`: JSON-RPC 2.0, one message a line over the agent's stdio.
// It creates a session, sends prompts, and approves every permission
// request with the first option that allows. It offers no file system or
// terminal of its own, so Cline uses its own.
type acpClient struct {
	in  io.Writer
	log *bytes.Buffer

	mu      sync.Mutex
	nextID  int
	pending map[int]chan rpcMessage
	writeMu sync.Mutex
}

type rpcMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      *int            `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
}

func newACPClient(in io.Writer, log *bytes.Buffer) *acpClient {
	return &acpClient{in: in, log: log, pending: map[int]chan rpcMessage{}}
}

func (a *acpClient) write(m any) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	a.writeMu.Lock()
	defer a.writeMu.Unlock()
	_, err = a.in.Write(append(b, '\n'))
	return err
}

// call sends a request and waits for its response or ctx's end.
func (a *acpClient) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	a.mu.Lock()
	a.nextID++
	id := a.nextID
	ch := make(chan rpcMessage, 1)
	a.pending[id] = ch
	a.mu.Unlock()
	p, _ := json.Marshal(params)
	if err := a.write(rpcMessage{JSONRPC: "2.0", ID: &id, Method: method, Params: p}); err != nil {
		return nil, err
	}
	select {
	case m := <-ch:
		if len(m.Error) > 0 {
			return nil, fmt.Errorf("%s: %s", method, m.Error)
		}
		return m.Result, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// serve reads the agent's output until it ends: responses go to their
// callers, permission requests are approved, anything else is logged.
func (a *acpClient) serve(out io.Reader) {
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var m rpcMessage
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		switch {
		case m.ID != nil && m.Method == "":
			a.mu.Lock()
			ch := a.pending[*m.ID]
			delete(a.pending, *m.ID)
			a.mu.Unlock()
			if ch != nil {
				ch <- m
			}
		case m.ID != nil && m.Method == "session/request_permission":
			_ = a.write(map[string]any{"jsonrpc": "2.0", "id": *m.ID, "result": map[string]any{
				"outcome": map[string]string{"outcome": "selected", "optionId": allowOption(m.Params)}}})
		case m.ID != nil:
			_ = a.write(map[string]any{"jsonrpc": "2.0", "id": *m.ID, "error": map[string]any{"code": -32601, "message": "not offered"}})
		}
		a.mu.Lock()
		if a.log.Len() < 4<<20 {
			a.log.Write(sc.Bytes())
			a.log.WriteByte('\n')
		}
		a.mu.Unlock()
	}
}

// allowOption picks the permission option that allows once (or else
// always); the first option when none is labelled so.
func allowOption(params json.RawMessage) string {
	var p struct {
		Options []struct {
			OptionID string `json:"optionId"`
			Kind     string `json:"kind"`
		} `json:"options"`
	}
	_ = json.Unmarshal(params, &p)
	for _, kind := range []string{"allow_once", "allow_always"} {
		for _, o := range p.Options {
			if o.Kind == kind {
				return o.OptionID
			}
		}
	}
	for _, o := range p.Options {
		if strings.HasPrefix(o.Kind, "allow") {
			return o.OptionID
		}
	}
	if len(p.Options) > 0 {
		return p.Options[0].OptionID
	}
	return ""
}
