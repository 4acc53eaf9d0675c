package server

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// cancelGate keeps the answer to a request the client cancelled off the
// wire. The MCP cancellation utility says the receiver of
// notifications/cancelled SHOULD NOT send a response for the cancelled
// request (spec basic/utilities/cancellation; the TypeScript SDK's
// Protocol reports such a response as "Received a response for an unknown
// message ID", shared/protocol.ts _onresponse). go-sdk cancels the
// handler's context but always writes the handler's result
// (internal/jsonrpc2/conn.go processResult writes with notDone{req.ctx};
// go-sdk issues #1235 and #1259), and nothing between the handler and that
// write is open to a server, so the gate works on the streamable HTTP
// exchange: it notes the requests of each POST, marks those a later
// notifications/cancelled names, and drops their responses from the POST's
// event stream. Once every request of a POST is cancelled, nothing more is
// sent on its stream (no progress, no elicitation), and the stream ends
// when go-sdk is done with it. The call itself still ends cancelled, with
// its tool_result recorded in the session.
type cancelGate struct {
	next    http.Handler
	maxBody int64

	mu       sync.Mutex
	inflight map[gateKey]*gatedPost // requests whose POST is still open
}

// gateKey is one request of one MCP session.
type gateKey struct {
	session string
	id      jsonrpc.ID
}

func newCancelGate(next http.Handler, maxBody int64) *cancelGate {
	return &cancelGate{next: next, maxBody: maxBody, inflight: map[gateKey]*gatedPost{}}
}

func (g *cancelGate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	session := r.Header.Get("Mcp-Session-Id")
	if r.Method != http.MethodPost || session == "" {
		g.next.ServeHTTP(w, r)
		return
	}
	// Read the body once, within the handler's own limit; a larger body
	// goes on untouched for go-sdk to refuse.
	limit := g.maxBody
	if limit <= 0 {
		limit = 4 << 20
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil || int64(len(body)) > limit {
		r.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
		g.next.ServeHTTP(w, r)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))

	var calls []jsonrpc.ID
	for _, msg := range decodeMessages(body) {
		req, ok := msg.(*jsonrpc.Request)
		switch {
		case !ok:
		case req.IsCall():
			calls = append(calls, req.ID)
		case req.Method == "notifications/cancelled":
			var p struct {
				RequestID any `json:"requestId"`
			}
			if json.Unmarshal(req.Params, &p) == nil {
				if id, err := jsonrpc.MakeID(p.RequestID); err == nil && id.IsValid() {
					g.cancel(gateKey{session, id})
				}
			}
		}
	}
	if len(calls) == 0 {
		g.next.ServeHTTP(w, r)
		return
	}
	gp := &gatedPost{ResponseWriter: w, calls: len(calls), cancelled: map[jsonrpc.ID]bool{}}
	g.mu.Lock()
	for _, id := range calls {
		g.inflight[gateKey{session, id}] = gp
	}
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		for _, id := range calls {
			if g.inflight[gateKey{session, id}] == gp {
				delete(g.inflight, gateKey{session, id})
			}
		}
		g.mu.Unlock()
	}()
	g.next.ServeHTTP(gp, r)
}

// cancel marks a request as cancelled by its client, if its POST is
// still open; a request already answered stays answered.
func (g *cancelGate) cancel(k gateKey) {
	g.mu.Lock()
	gp := g.inflight[k]
	g.mu.Unlock()
	if gp != nil {
		gp.cancel(k.id)
	}
}

// decodeMessages reads a POST body: one JSON-RPC message or a batch.
// What does not decode is left for go-sdk to refuse.
func decodeMessages(body []byte) []jsonrpc.Message {
	body = bytes.TrimSpace(body)
	if len(body) > 0 && body[0] == '[' {
		var raws []json.RawMessage
		if json.Unmarshal(body, &raws) != nil {
			return nil
		}
		var msgs []jsonrpc.Message
		for _, raw := range raws {
			if msg, err := jsonrpc.DecodeMessage(raw); err == nil {
				msgs = append(msgs, msg)
			}
		}
		return msgs
	}
	msg, err := jsonrpc.DecodeMessage(body)
	if err != nil {
		return nil
	}
	return []jsonrpc.Message{msg}
}

// gatedPost is the response writer of a POST carrying requests: it passes
// the event stream through event by event, leaving out the responses to
// cancelled requests, and everything once all of them are cancelled.
type gatedPost struct {
	http.ResponseWriter

	mu        sync.Mutex
	calls     int                 // requests in the POST
	cancelled map[jsonrpc.ID]bool // of those, the ones the client cancelled
	partial   []byte              // the start of an event not yet written whole
}

func (gp *gatedPost) cancel(id jsonrpc.ID) {
	gp.mu.Lock()
	gp.cancelled[id] = true
	gp.mu.Unlock()
}

// Unwrap lets http.ResponseController reach the connection (flushes,
// deadlines).
func (gp *gatedPost) Unwrap() http.ResponseWriter { return gp.ResponseWriter }

func (gp *gatedPost) Flush() {
	_ = http.NewResponseController(gp.ResponseWriter).Flush()
}

func (gp *gatedPost) Write(p []byte) (int, error) {
	if !strings.HasPrefix(gp.Header().Get("Content-Type"), "text/event-stream") {
		return gp.ResponseWriter.Write(p)
	}
	gp.mu.Lock()
	defer gp.mu.Unlock()
	gp.partial = append(gp.partial, p...)
	var out []byte
	for {
		end := bytes.Index(gp.partial, []byte("\n\n"))
		if end < 0 {
			break
		}
		event := gp.partial[:end+2]
		if gp.passes(event) {
			out = append(out, event...)
		}
		gp.partial = gp.partial[end+2:]
	}
	if len(gp.partial) == 0 {
		gp.partial = nil
	}
	if len(out) > 0 {
		if _, err := gp.ResponseWriter.Write(out); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// passes says whether one SSE event goes out. gp.mu is held.
func (gp *gatedPost) passes(event []byte) bool {
	if len(gp.cancelled) == 0 {
		return true
	}
	if len(gp.cancelled) >= gp.calls {
		return false
	}
	var data []byte
	sc := bufio.NewScanner(bytes.NewReader(event))
	sc.Buffer(nil, len(event)+1)
	for sc.Scan() {
		if d, ok := bytes.CutPrefix(sc.Bytes(), []byte("data:")); ok {
			if len(data) > 0 {
				data = append(data, '\n')
			}
			data = append(data, bytes.TrimPrefix(d, []byte(" "))...)
		}
	}
	if msg, err := jsonrpc.DecodeMessage(data); err == nil {
		if resp, ok := msg.(*jsonrpc.Response); ok && gp.cancelled[resp.ID] {
			return false
		}
	}
	return true
}
