package server

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// Named test tokens, one a scope, and the server token with them all.
const (
	agentToken   = "agent-token-0123456789abcdef0123456789abcdef"
	aliceToken   = "alice-token-0123456789abcdef0123456789abcdef"
	opsToken     = "ops-token-0123456789abcdef0123456789abcdef"
	scraperToken = "scraper-token-0123456789abcdef0123456789abcdef"
)

func namedToken(name, token string, scopes ...string) NamedToken {
	sum := sha256.Sum256([]byte(token))
	return NamedToken{Name: name, SHA256: hex.EncodeToString(sum[:]), Scopes: scopes}
}

func scopedTokens() []NamedToken {
	return []NamedToken{
		namedToken("agent", agentToken, "call"),
		namedToken("alice", aliceToken, "approve"),
		namedToken("ops", opsToken, "admin"),
		namedToken("scraper", scraperToken, "metrics"),
	}
}

// scopeServer is a real server whose write_to_file asks for approval,
// with the named tokens above.
func scopeServer(t *testing.T, mutate ...func(*Config)) *fixture {
	t.Helper()
	cfg := Config{Token: flowToken, Tokens: scopedTokens()}
	for _, m := range mutate {
		m(&cfg)
	}
	return newFixture(t, fixtureOptions{files: map[string]string{"a.txt": "old\n"}, tools: flowTools(), server: cfg})
}

// send makes one request with token and returns the status and body.
func send(t *testing.T, f *fixture, token, method, path string, body any) (int, []byte) {
	t.Helper()
	resp, data := sendFull(t, f, token, method, path, body)
	return resp.StatusCode, data
}

// sendFull makes one request with token and extra headers (name, value
// pairs) and returns the response, its body read.
func sendFull(t *testing.T, f *fixture, token, method, path string, body any, hdr ...string) (*http.Response, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, f.url+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := f.ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return resp, nil // a stream that stays open: its status is the answer
	}
	data, _ := io.ReadAll(resp.Body)
	return resp, data
}

// TestCallTokenCannotApproveItsOwnCall is the attack: an agent loop holding
// a call token posts a write that needs approval, then tries to approve it
// itself. The decision is refused, the call keeps waiting and the file is
// unchanged; a person's approve token then decides it, and the audit names
// that token.
func TestCallTokenCannotApproveItsOwnCall(t *testing.T) {
	f := scopeServer(t)
	type reply struct {
		status int
		body   []byte
	}
	done := make(chan reply, 1)
	go func() {
		status, body := send(t, f, agentToken, "POST", "/v1/sessions/default/messages", assistant(
			toolUse("toolu_w1", "write_to_file", map[string]any{"path": "a.txt", "content": "pwned\n"})))
		done <- reply{status, body}
	}()
	waitAwaiting(t, f, agentToken, "toolu_w1")

	decide := map[string]any{"decision": "approve"}
	status, body := send(t, f, agentToken, "POST", "/v1/sessions/default/calls/toolu_w1/decision", decide)
	if status != http.StatusForbidden || !strings.Contains(string(body), api.CodeForbiddenScope) {
		t.Fatalf("call token's decision: %d %s, want 403 %s", status, body, api.CodeForbiddenScope)
	}
	if got := readFile(t, f, "a.txt"); got != "old\n" {
		t.Fatalf("a.txt = %q after the refused decision, want it unchanged", got)
	}
	waitAwaiting(t, f, agentToken, "toolu_w1") // still waiting for a decision

	if status, body := send(t, f, aliceToken, "POST", "/v1/sessions/default/calls/toolu_w1/decision", decide); status != http.StatusOK {
		t.Fatalf("approve token's decision: %d %s", status, body)
	}
	select {
	case r := <-done:
		if r.status != http.StatusOK {
			t.Fatalf("message: %d %s", r.status, r.body)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the message did not finish after the approval")
	}
	status, body = send(t, f, opsToken, "GET", "/v1/audit", nil)
	if status != http.StatusOK || !strings.Contains(string(body), `"decided_by":"token:alice"`) {
		t.Fatalf("audit: %d %s, want decided_by token:alice", status, body)
	}
}

// waitAwaiting polls until the call awaits approval (30 s at most).
func waitAwaiting(t *testing.T, f *fixture, token, id string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		status, body := send(t, f, token, "GET", "/v1/sessions/default/calls?state=awaiting_approval", nil)
		if status == http.StatusOK && strings.Contains(string(body), `"`+id+`"`) {
			return
		}
		time.Sleep(20 * time.Millisecond) // a poll with a deadline: the state has no event to wait on here
	}
	t.Fatalf("%s did not come to await approval within 30s", id)
}

func readFile(t *testing.T, f *fixture, name string) string {
	t.Helper()
	ws, err := tool.OpenWorkspace(f.dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	b, err := ws.Root.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// routeScopes is the scope each /v1 route needs, as routes.go declares it;
// the test below checks every token against every route, and fails when a
// route is added without a line here.
var routeScopes = map[string]Scope{
	"GET /v1/tools":                                        ScopeCall,
	"POST /v1/tool_use":                                    ScopeCall,
	"GET /v1/sessions":                                     ScopeCall | ScopeApprove,
	"POST /v1/sessions":                                    ScopeCall,
	"GET /v1/sessions/{sid}":                               ScopeCall | ScopeApprove,
	"PATCH /v1/sessions/{sid}":                             ScopeAdmin,
	"DELETE /v1/sessions/{sid}":                            ScopeCall,
	"POST /v1/sessions/{sid}/messages":                     ScopeCall,
	"POST /v1/sessions/{sid}/messages/{mid}/blocks":        ScopeCall,
	"POST /v1/sessions/{sid}/messages/{mid}/complete":      ScopeCall,
	"DELETE /v1/sessions/{sid}/messages/{mid}":             ScopeCall,
	"GET /v1/sessions/{sid}/events":                        ScopeCall | ScopeApprove,
	"GET /v1/sessions/{sid}/ports":                         ScopeCall | ScopeApprove,
	"GET /v1/sessions/{sid}/ports/{port}":                  ScopeCall,
	"GET /v1/sessions/{sid}/ports/{port}/*":                ScopeCall,
	"POST /v1/sessions/{sid}/ports/{port}/*":               ScopeCall,
	"PUT /v1/sessions/{sid}/ports/{port}/*":                ScopeCall,
	"PATCH /v1/sessions/{sid}/ports/{port}/*":              ScopeCall,
	"DELETE /v1/sessions/{sid}/ports/{port}/*":             ScopeCall,
	"GET /v1/sessions/{sid}/calls":                         ScopeCall | ScopeApprove,
	"GET /v1/sessions/{sid}/calls/{tool_use_id}":           ScopeCall | ScopeApprove,
	"GET /v1/sessions/{sid}/calls/{tool_use_id}/output":    ScopeCall | ScopeApprove,
	"POST /v1/sessions/{sid}/calls/{tool_use_id}/cancel":   ScopeCall,
	"POST /v1/sessions/{sid}/calls/{tool_use_id}/revert":   ScopeApprove,
	"POST /v1/sessions/{sid}/calls/{tool_use_id}/decision": ScopeApprove,
	"POST /v1/sessions/{sid}/calls/{tool_use_id}/answer":   ScopeApprove,
	"POST /v1/sessions/{sid}/interrupt":                    ScopeCall,
	"GET /v1/sessions/{sid}/jobs":                          ScopeCall | ScopeApprove,
	"GET /v1/sessions/{sid}/jobs/{jid}":                    ScopeCall | ScopeApprove,
	"GET /v1/sessions/{sid}/jobs/{jid}/output":             ScopeCall | ScopeApprove,
	"DELETE /v1/sessions/{sid}/jobs/{jid}":                 ScopeCall,
	"POST /v1/sessions/{sid}/jobs/{jid}/stdin":             ScopeCall,
	"POST /v1/sse-tickets":                                 ScopeCall | ScopeApprove,
	"GET /v1/mcp/servers":                                  ScopeCall,
	"GET /v1/approvals":                                    ScopeCall | ScopeApprove,
	"GET /v1/tool-stats":                                   AllScopes,
	"GET /v1/audit":                                        ScopeAdmin,
	"GET /v1/audit/export":                                 ScopeAdmin,
	"GET /mcp":                                             ScopeCall,
	"POST /mcp":                                            ScopeCall,
	"DELETE /mcp":                                          ScopeCall,
}

// TestEachRouteNeedsItsScope sends every route with each one-scope token:
// a token lacking the route's scope gets 403 forbidden_scope before the
// handler runs; one holding it gets past the scope check (whatever the
// handler then answers to the empty request).
func TestEachRouteNeedsItsScope(t *testing.T) {
	f := scopeServer(t)
	tokens := map[Scope]string{ScopeCall: agentToken, ScopeApprove: aliceToken, ScopeAdmin: opsToken, ScopeMetrics: scraperToken}
	seen := map[string]bool{}
	err := chi.Walk(New(discardLogger(), f.coord, prometheus.NewRegistry(), Config{Token: flowToken}).(chi.Routes),
		func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
			if route == "/mcp" || strings.HasPrefix(route, "/v1/") {
				seen[method+" "+route] = true
			}
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	for key := range seen {
		if _, ok := routeScopes[key]; !ok {
			t.Errorf("route %s has no scope in routeScopes", key)
		}
	}
	for key, need := range routeScopes {
		if !seen[key] {
			t.Errorf("routeScopes lists %s, which the router does not serve", key)
			continue
		}
		method, route, _ := strings.Cut(key, " ")
		path := strings.NewReplacer("{sid}", "default", "{mid}", "m1", "{tool_use_id}", "toolu_x", "{jid}", "j1", "{port}", "8000", "*", "x").Replace(route)
		for scope, token := range tokens {
			var body any
			if method == "POST" || method == "PATCH" {
				body = map[string]any{}
			}
			status, data := send(t, f, token, method, path, body)
			refused := status == http.StatusForbidden && strings.Contains(string(data), api.CodeForbiddenScope)
			if want := need&scope == 0; refused != want {
				t.Errorf("%s with a %s token: %d %s; refused = %v, want %v", key, scope, status, data, refused, want)
			}
		}
	}
}

// TestTicketCarriesItsMintersScopes: a ticket made by a call token opens
// its session's event stream, and admits nothing else (a decision sent
// with it is refused as unauthenticated).
func TestTicketCarriesItsMintersScopes(t *testing.T) {
	f := scopeServer(t)
	status, body := send(t, f, agentToken, "POST", "/v1/sse-tickets", map[string]any{"session": "default"})
	if status != http.StatusCreated {
		t.Fatalf("ticket: %d %s", status, body)
	}
	var tk api.SSETicket
	if err := json.Unmarshal(body, &tk); err != nil {
		t.Fatal(err)
	}
	if status, body := send(t, f, "", "GET", "/v1/sessions/default/events?ticket="+tk.Ticket, nil); status != http.StatusOK {
		t.Fatalf("events with the ticket: %d %s", status, body)
	}
	if status, body := send(t, f, "", "POST", "/v1/sessions/default/calls/toolu_x/decision?ticket="+tk.Ticket,
		map[string]any{"decision": "approve"}); status != http.StatusUnauthorized {
		t.Fatalf("decision with a ticket: %d %s, want 401", status, body)
	}
}

// TestMetricsRequireToken: /metrics is open by default; with
// metrics_require_token it needs the metrics scope.
func TestMetricsRequireToken(t *testing.T) {
	open := scopeServer(t)
	if status, _ := send(t, open, "", "GET", "/metrics", nil); status != http.StatusOK {
		t.Fatalf("open /metrics: %d", status)
	}
	closed := scopeServer(t, func(c *Config) { c.MetricsRequireToken = true })
	for _, c := range []struct {
		token string
		want  int
	}{{"", http.StatusUnauthorized}, {agentToken, http.StatusForbidden}, {scraperToken, http.StatusOK}, {flowToken, http.StatusOK}} {
		if status, body := send(t, closed, c.token, "GET", "/metrics", nil); status != c.want {
			t.Errorf("/metrics with %q: %d %s, want %d", c.token, status, body, c.want)
		}
	}
}

// TestCheckTokensListsEveryProblem: a bad token list is refused at start-up
// with each problem named.
func TestCheckTokensListsEveryProblem(t *testing.T) {
	err := CheckTokens([]NamedToken{
		{Name: "a b", SHA256: strings.Repeat("0", 64), Scopes: []string{"call"}},
		{Name: "x", SHA256: "zz", Scopes: []string{"call"}},
		{Name: "y", SHA256: strings.Repeat("1", 64), Scopes: []string{"root"}},
		namedToken("z", "t", "call"), namedToken("z", "u", "call"),
	})
	if err == nil {
		t.Fatal("CheckTokens accepted a bad list")
	}
	for _, want := range []string{`"a b"`, `token "x": sha256`, `unknown scope "root"`, `token "z": the name is used twice`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}
