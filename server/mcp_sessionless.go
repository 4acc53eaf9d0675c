package server

import (
	"bytes"
	"io"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// sessionless sends a POST that names no MCP session (no Mcp-Session-Id)
// and does not initialize one to the stateless handler, everything else
// to the stateful one. Stateful, such a POST made a session nobody could
// name again and was answered "method is invalid during session
// initialization"; stateless, a plain HTTP client (curl, Postman, a
// script) gets its tools/list or tools/call answered in one request, as
// MCP's sessionless transport answers it. What it cannot get is what
// needs a session: server-to-client requests (an approval arrives on the
// toolgate session's event stream instead of as an elicitation), the
// standalone stream, list-changed notifications. A client speaking the
// sessionless protocol revision (2026-07-28, which the go-sdk client
// probes for first) is left to the stateful handler, which declines it:
// the client then initializes a session, and keeps elicitation.
func sessionless(stateful, stateless http.Handler, maxBody int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get("Mcp-Session-Id") != "" {
			stateful.ServeHTTP(w, r)
			return
		}
		limit := maxBody
		if limit <= 0 {
			limit = 4 << 20
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
		rest := r.Body
		r.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(body), rest), rest}
		if err != nil || int64(len(body)) > limit || initializes(body) || modern(r, body) {
			stateful.ServeHTTP(w, r) // it refuses what is too large or malformed
			return
		}
		stateless.ServeHTTP(w, r)
	})
}

// initializes reports whether body is not a JSON-RPC message or batch, or
// holds an initialize request: those go to the stateful handler, which
// starts a session or refuses the body.
func initializes(body []byte) bool {
	msgs := decodeMessages(body)
	if len(msgs) == 0 {
		return true
	}
	for _, m := range msgs {
		if req, ok := m.(*jsonrpc.Request); ok && req.Method == "initialize" {
			return true
		}
	}
	return false
}

// modernProtocol is the first MCP revision without sessions (SEP-2575).
const modernProtocol = "2026-07-28"

// modern reports whether the request speaks that revision or probes for
// it: its MCP-Protocol-Version header, server/discover, or the per-request
// protocolVersion in _meta.
func modern(r *http.Request, body []byte) bool {
	if v := r.Header.Get("MCP-Protocol-Version"); v != "" && v >= modernProtocol {
		return true
	}
	if bytes.Contains(body, []byte("io.modelcontextprotocol/protocolVersion")) {
		return true
	}
	for _, m := range decodeMessages(body) {
		if req, ok := m.(*jsonrpc.Request); ok && req.Method == "server/discover" {
			return true
		}
	}
	return false
}
