package server

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
)

func mintTicket(t *testing.T, env *webEnv, session string) string {
	t.Helper()
	resp := env.do(t, "POST", "/v1/sse-tickets", `{"session":"`+session+`"}`, auth(map[string]string{"Content-Type": "application/json"}))
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("POST /v1/sse-tickets: status = %d, want 201: %s", resp.StatusCode, readAll(t, resp.Body))
	}
	var tk api.SSETicket
	if err := json.NewDecoder(resp.Body).Decode(&tk); err != nil {
		t.Fatal(err)
	}
	if tk.ExpiresIn != 60 || tk.Session != session || len(tk.Ticket) < 40 {
		t.Fatalf("ticket = %+v, want 60 s, session %q and a long random ticket", tk, session)
	}
	return tk.Ticket
}

// openEvents opens a session's stream with a ticket and no token, and
// returns the status; a 200 stream is closed at once.
func openEvents(t *testing.T, env *webEnv, session, ticket string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", env.URL+"/v1/sessions/"+session+"/events?ticket="+ticket, nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := testHTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusOK && !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Errorf("Content-Type = %q, want text/event-stream", resp.Header.Get("Content-Type"))
	}
	return resp.StatusCode
}

func createSession(t *testing.T, env *webEnv) string {
	t.Helper()
	resp := env.do(t, "POST", "/v1/sessions", `{"mode":"act"}`, auth(map[string]string{"Content-Type": "application/json"}))
	var s struct{ ID string }
	if err := json.NewDecoder(resp.Body).Decode(&s); err != nil || s.ID == "" {
		t.Fatalf("create session: status %d, %v", resp.StatusCode, err)
	}
	return s.ID
}

func TestSSETickets(t *testing.T) {
	env := newWebEnv(t, nil, nil)
	other := createSession(t, env)

	t.Run("good for reconnects of its session", func(t *testing.T) {
		tk := mintTicket(t, env, "default")
		for i := range 3 {
			if got := openEvents(t, env, "default", tk); got != http.StatusOK {
				t.Fatalf("use %d: status = %d, want 200", i+1, got)
			}
		}
	})
	t.Run("for its session only, and spent by the attempt", func(t *testing.T) {
		tk := mintTicket(t, env, "default")
		if got := openEvents(t, env, other, tk); got != http.StatusUnauthorized {
			t.Errorf("other session: status = %d, want 401", got)
		}
		if got := openEvents(t, env, "default", tk); got != http.StatusUnauthorized {
			t.Errorf("after a wrong use: status = %d, want 401", got)
		}
	})
	t.Run("the events route only", func(t *testing.T) {
		tk := mintTicket(t, env, "default")
		for _, p := range []string{"/v1/tools", "/v1/sessions/default", "/v1/sessions/default/calls", "/v1/sessions/default/events/"} {
			if resp := env.do(t, "GET", p+"?ticket="+tk, "", nil); resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("GET %s?ticket=: status = %d, want 401", p, resp.StatusCode)
			}
		}
		if resp := env.do(t, "POST", "/v1/sessions/default/messages?ticket="+tk, `{"role":"assistant","content":[]}`,
			map[string]string{"Content-Type": "application/json"}); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("POST messages?ticket=: status = %d, want 401", resp.StatusCode)
		}
	})
	t.Run("made-up ticket", func(t *testing.T) {
		if got := openEvents(t, env, "default", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"); got != http.StatusUnauthorized {
			t.Errorf("status = %d, want 401", got)
		}
	})
	t.Run("minting needs the token and a live session", func(t *testing.T) {
		if resp := env.do(t, "POST", "/v1/sse-tickets", `{"session":"default"}`, map[string]string{"Content-Type": "application/json"}); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("without token: status = %d, want 401", resp.StatusCode)
		}
		h := auth(map[string]string{"Content-Type": "application/json"})
		if resp := env.do(t, "POST", "/v1/sse-tickets", `{"session":"nope"}`, h); resp.StatusCode != http.StatusNotFound {
			t.Errorf("unknown session: status = %d, want 404", resp.StatusCode)
		}
		if resp := env.do(t, "POST", "/v1/sse-tickets", `{}`, h); resp.StatusCode != http.StatusBadRequest {
			t.Errorf("no session: status = %d, want 400", resp.StatusCode)
		}
	})
	t.Run("the token still works on the events route", func(t *testing.T) {
		resp := env.do(t, "GET", "/v1/sessions/default/events", "", auth(map[string]string{"Accept": "text/event-stream"}))
		if resp.StatusCode != http.StatusOK {
			t.Errorf("status = %d, want 200", resp.StatusCode)
		}
	})
}

func TestTicketStore(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	clock := func() time.Time { return now }
	t.Run("expires after its lifetime", func(t *testing.T) {
		ts := newTicketStore(ticketTTL, 8, clock)
		tk := ts.mint("s", principal{})
		now = now.Add(ticketTTL)
		if redeemOK(ts, tk, "s") {
			t.Error("redeem at expiry = true, want false")
		}
	})
	t.Run("good just before expiry", func(t *testing.T) {
		ts := newTicketStore(ticketTTL, 8, clock)
		tk := ts.mint("s", principal{})
		now = now.Add(ticketTTL - time.Millisecond)
		if !redeemOK(ts, tk, "s") {
			t.Error("redeem before expiry = false, want true")
		}
	})
	t.Run("bounded: the oldest goes", func(t *testing.T) {
		ts := newTicketStore(ticketTTL, 4, clock)
		first := ts.mint("s", principal{})
		for range 10 {
			now = now.Add(time.Millisecond)
			ts.mint("s", principal{})
		}
		if got := ts.len(); got != 4 {
			t.Errorf("len = %d, want 4", got)
		}
		if redeemOK(ts, first, "s") {
			t.Error("the oldest ticket survived past the bound")
		}
	})
	t.Run("good while its stream is open, and a lifetime after", func(t *testing.T) {
		ts := newTicketStore(ticketTTL, 2, clock)
		tk := ts.mint("s", principal{})
		if _, ok := ts.attach(tk); !ok {
			t.Fatal("attach of a fresh ticket failed")
		}
		ts.advance(tk, 41)
		now = now.Add(3 * ticketTTL) // a long stream
		ts.mint("s", principal{})
		ts.mint("s", principal{}) // past the bound: the open one must stay
		if !redeemOK(ts, tk, "s") {
			t.Fatal("a ticket whose stream is open expired or was dropped")
		}
		ts.detach(tk)
		now = now.Add(ticketTTL - time.Millisecond)
		if pos, ok := ts.attach(tk); !ok || pos != 41 {
			t.Fatalf("attach after the stream = %d, %v; want the position 41", pos, ok)
		}
		ts.detach(tk)
		now = now.Add(ticketTTL)
		if redeemOK(ts, tk, "s") {
			t.Error("redeem a lifetime after the last stream closed = true, want false")
		}
	})
	t.Run("expired tickets are pruned", func(t *testing.T) {
		ts := newTicketStore(ticketTTL, 100, clock)
		for range 10 {
			ts.mint("s", principal{})
		}
		now = now.Add(2 * ticketTTL)
		ts.mint("s", principal{})
		if got := ts.len(); got != 1 {
			t.Errorf("len = %d, want 1", got)
		}
	})
}

func TestQueryStringsNotLogged(t *testing.T) {
	env := newWebEnv(t, nil, nil)
	tk := mintTicket(t, env, "default")
	if got := openEvents(t, env, "default", tk); got != http.StatusOK {
		t.Fatalf("status = %d, want 200", got)
	}
	env.do(t, "GET", "/v1/tools?ticket=secret-in-query&session=default", "", auth(nil))
	// The stream's log line is written when its handler returns.
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(env.logs.String(), `"path":"/v1/sessions/default/events"`) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	logs := env.logs.String()
	if !strings.Contains(logs, `"path":"/v1/sessions/default/events"`) {
		t.Fatalf("no log line for the stream; logs:\n%s", logs)
	}
	sc := bufio.NewScanner(strings.NewReader(logs))
	for sc.Scan() {
		line := sc.Text()
		for _, secret := range []string{tk, "secret-in-query", "ticket=", testToken} {
			if strings.Contains(line, secret) {
				t.Errorf("log line holds %q: %s", secret, line)
			}
		}
	}
}

// len counts the store's tickets.
func (ts *ticketStore) len() int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return len(ts.entries)
}

// redeemOK reports whether the ticket admits the session, whoever made it.
func redeemOK(ts *ticketStore, ticket, session string) bool {
	_, ok := ts.redeem(ticket, session)
	return ok
}
