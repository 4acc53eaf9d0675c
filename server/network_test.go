package server

import (
	"bufio"
	"context"
	"crypto/sha1"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/internal/sandbox"
	"github.com/toolgate/toolgate/internal/testproc"
	"github.com/toolgate/toolgate/internal/testwait"
)

// devServer is a dev server in a few lines of Node: a page on every path,
// and a WebSocket that echoes what it receives (the handshake, then the
// raw bytes back: enough to show the proxy carries both ways).
const devServer = `const http = require('http'), crypto = require('crypto');
const s = http.createServer((req, res) => req.url === '/console'
  ? res.end('<!doctype html><script>console.log("hello from the session\'s dev server")</script>')
  : res.end('hello from the dev server at ' + req.url + '\n'));
s.on('upgrade', (req, sock) => {
  const accept = crypto.createHash('sha1').update(req.headers['sec-websocket-key'] + '258EAFA5-E914-47DA-95CA-C5AB0DC11B65').digest('base64');
  sock.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ' + accept + '\r\n\r\n');
  sock.pipe(sock);
});
s.listen(+process.argv[2], '127.0.0.1');
`

// newNetworkServer is a server whose sessions get networks of their own;
// it skips where this machine gives none.
func newNetworkServer(t *testing.T, sb sandbox.Config) *execServer {
	t.Helper()
	if _, err := os.Stat("/usr/bin/node"); err != nil {
		t.Skip("node is not installed")
	}
	sb.Mode = sandbox.ModeBwrap
	probe := sandbox.New(sb)
	defer probe.Close()
	n, err := probe.NewNetwork(sandbox.NetworkOptions{})
	if err != nil {
		t.Skipf("no session networks here: %v", err)
	}
	n.Close()
	cfg := coordinator.DefaultConfig()
	cfg.Commands.OutputDir = t.TempDir()
	cfg.AllowAll = true // commands run unasked; the network still asks
	cfg.Sandbox = sb
	f := newFixture(t, fixtureOptions{config: cfg, server: Config{Token: testToken},
		files: map[string]string{"server.js": devServer}})
	return &execServer{url: f.url, dir: f.dir, coord: f.coord}
}

// run posts one execute_command and returns its result's text.
func (s *execServer) run(t *testing.T, sid, id, command string) (string, bool) {
	t.Helper()
	resp := decodeJSON[api.MessageResponse](t, s.request(t, t.Context(), "POST", "/v1/sessions/"+sid+"/messages", message(commandUse(id, command)), ""), http.StatusOK)
	return resultText(resp.Message.Content[0]), resp.Message.Content[0].IsError
}

// events streams a session's events into a channel until the test ends.
func (s *execServer) events(t *testing.T, sid string) <-chan api.Event {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	resp := s.request(t, ctx, "GET", "/v1/sessions/"+sid+"/events", nil, "text/event-stream")
	ch := make(chan api.Event, 256)
	go func() {
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var e api.Event
			if data, ok := strings.CutPrefix(sc.Text(), "data:"); ok && json.Unmarshal([]byte(strings.TrimSpace(data)), &e) == nil {
				select {
				case ch <- e:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return ch
}

// waitEvent returns the first event that match accepts, within 30 s.
func waitEvent(t *testing.T, ch <-chan api.Event, what string, match func(api.Event) bool) api.Event {
	t.Helper()
	deadline := time.After(testwait.Limit)
	for {
		select {
		case e := <-ch:
			if match(e) {
				return e
			}
		case <-deadline:
			t.Fatalf("no %s event within %v", what, testwait.Limit)
		}
	}
}

// TestSessionNetworkPreview: a dev server started as a background job
// answers a later command of its session and nothing of another session;
// a port.listening event announces it; the ports route lists it; the
// preview proxies a page and a WebSocket with the token or a ticket's
// cookie, and refuses a wrong token, a foreign Origin and a cookie made
// for another port; once the session is deleted its processes and its
// network namespace are gone.
func TestSessionNetworkPreview(t *testing.T) {
	s := newNetworkServer(t, sandbox.Config{})
	sid, other := s.session(t), s.session(t)
	events := s.events(t, sid)
	marker := fmt.Sprintf("%d", 20000+os.Getpid()%20000)
	if text, isErr := s.run(t, sid, "warm", "true"); isErr {
		t.Fatalf("first command: %s", text)
	}
	resp := decodeJSON[api.MessageResponse](t, s.request(t, t.Context(), "POST", "/v1/sessions/"+sid+"/messages",
		message(backgroundUse("srv", "exec node server.js "+marker)), ""), http.StatusOK)
	if resp.Message.Content[0].IsError {
		t.Fatalf("start the server: %+v", resp.Message.Content[0])
	}
	port, _ := strconv.Atoi(marker)
	ev := waitEvent(t, events, "port.listening", func(e api.Event) bool {
		return e.Type == api.EventPortListening && e.Port != nil && e.Port.Port == port
	})
	preview := ev.Port.URL
	if preview != "/v1/sessions/"+sid+"/ports/"+marker+"/" {
		t.Errorf("preview URL %q", preview)
	}

	t.Run("a later command of the session reaches it", func(t *testing.T) {
		text, isErr := s.run(t, sid, "curl1", "curl -sS --max-time 10 localhost:"+marker+"/page")
		if isErr || !strings.Contains(text, "hello from the dev server at /page") {
			t.Fatalf("curl: %s", text)
		}
	})
	t.Run("another session does not", func(t *testing.T) {
		text, _ := s.run(t, other, "curl2", "curl -sS --max-time 10 localhost:"+marker+"/page")
		if strings.Contains(text, "hello from the dev server") {
			t.Fatalf("another session reached the server: %s", text)
		}
		list := decodeJSON[api.PortList](t, s.request(t, t.Context(), "GET", "/v1/sessions/"+other+"/ports", nil, ""), http.StatusOK)
		if len(list.Ports) != 0 {
			t.Fatalf("the other session lists %v", list.Ports)
		}
		get := s.request(t, t.Context(), "GET", "/v1/sessions/"+other+"/ports/"+marker+"/", nil, "")
		get.Body.Close()
		if get.StatusCode != http.StatusServiceUnavailable {
			t.Fatalf("the other session's preview of the port: %d, want 503", get.StatusCode)
		}
	})
	t.Run("listed", func(t *testing.T) {
		list := decodeJSON[api.PortList](t, s.request(t, t.Context(), "GET", "/v1/sessions/"+sid+"/ports", nil, ""), http.StatusOK)
		if len(list.Ports) != 1 || list.Ports[0].Port != port || list.Ports[0].URL != preview {
			t.Fatalf("ports = %+v", list.Ports)
		}
	})
	t.Run("page through the preview", func(t *testing.T) {
		for _, tc := range []struct {
			name, auth, origin string
			want               int
		}{
			{"token", "Bearer " + testToken, "", http.StatusOK},
			{"own origin", "Bearer " + testToken, s.url, http.StatusOK},
			{"wrong token", "Bearer nope", "", http.StatusUnauthorized},
			{"no token", "", "", http.StatusUnauthorized},
			{"foreign origin", "Bearer " + testToken, "https://evil.example", http.StatusForbidden},
		} {
			t.Run(tc.name, func(t *testing.T) {
				status, body := previewGet(t, s.url+preview+"index.html", tc.auth, tc.origin, nil)
				if status != tc.want {
					t.Fatalf("status %d, want %d: %s", status, tc.want, body)
				}
				if tc.want == http.StatusOK && body != "hello from the dev server at /index.html\n" {
					t.Fatalf("body %q", body)
				}
			})
		}
	})
	t.Run("a browser's ticket becomes the port's cookie", func(t *testing.T) {
		ticket := decodeJSON[api.SSETicket](t, s.request(t, t.Context(), "POST", "/v1/sse-tickets", map[string]any{"session": sid}, ""), http.StatusCreated)
		req, _ := http.NewRequestWithContext(t.Context(), "GET", s.url+preview+"index.html?ticket="+ticket.Ticket, nil)
		resp, err := noRedirects.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		var cookie *http.Cookie
		for _, c := range resp.Cookies() {
			cookie = c
		}
		if resp.StatusCode != http.StatusSeeOther || cookie == nil || !cookie.HttpOnly || cookie.Path != preview ||
			strings.Contains(resp.Header.Get("Location"), "ticket") {
			t.Fatalf("ticket: %d, Location %q, cookie %+v", resp.StatusCode, resp.Header.Get("Location"), cookie)
		}
		if status, body := previewGet(t, s.url+preview+"index.html", "", "", cookie); status != http.StatusOK {
			t.Fatalf("with the cookie: %d %s", status, body)
		}
		if status, _ := previewGet(t, s.url+"/v1/sessions/"+sid+"/ports/1/", "", "", cookie); status != http.StatusUnauthorized {
			t.Fatalf("the cookie on another port: %d, want 401", status)
		}
		if status, _ := previewGet(t, s.url+"/v1/sessions/"+sid+"/ports", "", "", cookie); status != http.StatusUnauthorized {
			t.Fatalf("the cookie on the ports list: %d, want 401", status)
		}
	})
	t.Run("WebSocket through the preview", func(t *testing.T) {
		if got := wsEcho(t, s.url, preview+"socket", "Bearer "+testToken, ""); got != "ping" {
			t.Fatalf("echo %q, want ping", got)
		}
		if got := wsEcho(t, s.url, preview+"socket", "Bearer "+testToken, "https://evil.example"); got != "403" {
			t.Fatalf("foreign origin: %q, want 403", got)
		}
		if got := wsEcho(t, s.url, preview+"socket", "Bearer nope", ""); got != "401" {
			t.Fatalf("wrong token: %q, want 401", got)
		}
	})
	t.Run("gone with the session", func(t *testing.T) {
		sess, err := s.coord.Sessions().Get(sid)
		if err != nil {
			t.Fatal(err)
		}
		n, err := sess.SessionNetwork()
		if err != nil {
			t.Fatal(err)
		}
		id, holder := n.ID(), n.HolderPID()
		del := s.request(t, t.Context(), "DELETE", "/v1/sessions/"+sid, nil, "")
		del.Body.Close()
		waitGone(t, "server.js "+marker, 10*time.Second)
		testwait.Until(t, 10*time.Second, "the session's network namespace to be gone", func() bool { return len(inNetNS(id)) == 0 })
		if len(testproc.Matching("server.js "+marker)) != 0 || processAlive(holder) {
			t.Fatal("a process of the session outlived it")
		}
	})
}

// noRedirects is a client that shows redirects instead of following them.
var noRedirects = &http.Client{Timeout: time.Minute, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// previewGet fetches a preview URL as a browser or a client would.
func previewGet(t *testing.T, u, auth, origin string, cookie *http.Cookie) (int, string) {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), "GET", u, nil)
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	if cookie != nil {
		req.AddCookie(cookie)
	}
	resp, err := noRedirects.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// wsEcho opens a WebSocket through the preview, sends "ping" after the
// handshake and returns what comes back, or the status code of a refusal.
func wsEcho(t *testing.T, base, path, auth, origin string) string {
	t.Helper()
	host := strings.TrimPrefix(base, "http://")
	c, err := net.DialTimeout("tcp", host, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	req := "GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nAuthorization: " + auth + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
	if origin != "" {
		req += "Origin: " + origin + "\r\n"
	}
	if _, err := io.WriteString(c, req+"\r\n"); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		return strconv.Itoa(resp.StatusCode)
	}
	sum := sha1.Sum([]byte("dGhlIHNhbXBsZSBub25jZQ==258EAFA5-E914-47DA-95CA-C5AB0DC11B65"))
	if got := resp.Header.Get("Sec-WebSocket-Accept"); got != base64.StdEncoding.EncodeToString(sum[:]) {
		t.Fatalf("Sec-WebSocket-Accept %q", got)
	}
	if _, err := io.WriteString(c, "ping"); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4)
	if _, err := io.ReadFull(br, buf); err != nil {
		t.Fatal(err)
	}
	return string(buf)
}

// inNetNS lists the processes whose network namespace is id.
func inNetNS(id string) []string {
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		if l, err := os.Readlink("/proc/" + e.Name() + "/ns/net"); err == nil && l == id {
			out = append(out, e.Name())
		}
	}
	return out
}

// processAlive reports whether pid names a live process (not a zombie).
func processAlive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(rest, "Z")
}

// TestNetworkAccessByApproval: with the network off, a command's request
// through the session's proxy to a host no rule allows waits for a
// decision announced as network.awaiting_approval (host and port in the
// preview); rejected, the command sees a refusal that names the host and
// the rule that would allow it; approved with remember, it goes through
// and later requests to that host pass without asking. A private address
// the config does not allow is refused without asking anyone.
func TestNetworkAccessByApproval(t *testing.T) {
	hello := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hello from outside\n") })
	var addrs []string
	for range 2 {
		ln, err := net.Listen("tcp", "127.0.0.2:0")
		if err != nil {
			t.Skipf("no 127.0.0.2 here: %v", err)
		}
		srv := &http.Server{Handler: hello}
		go srv.Serve(ln)
		t.Cleanup(func() { srv.Close() })
		addrs = append(addrs, ln.Addr().String())
	}
	approved, rejected := addrs[0], addrs[1]
	s := newNetworkServer(t, sandbox.Config{NetworkAllowAddresses: addrs})
	sid := s.session(t)
	events := s.events(t, sid)
	decide := func(addr, decision string, remember bool) <-chan string {
		host, port, _ := net.SplitHostPort(addr)
		result := make(chan string, 1)
		go func() {
			text, _ := s.run(t, sid, "curl-"+port+"-"+decision, "curl -sS --max-time 50 "+addr+"/")
			result <- text
		}()
		ev := waitEvent(t, events, "network.awaiting_approval", func(e api.Event) bool {
			return e.Type == api.EventNetworkAwaitingApproval && e.Approval != nil && e.Approval.Preview.Network != nil &&
				strconv.Itoa(e.Approval.Preview.Network.Port) == port
		})
		if n := ev.Approval.Preview.Network; n.Host != host || n.Rule != "network(domain:"+host+")" || !strings.HasPrefix(ev.ToolUseID, "net_") {
			t.Errorf("approval preview %+v, tool_use_id %q", n, ev.ToolUseID)
		}
		d := decodeJSON[api.DecisionResponse](t, s.request(t, t.Context(), "POST", "/v1/sessions/"+sid+"/calls/"+ev.ToolUseID+"/decision",
			map[string]any{"decision": decision, "remember": remember}, ""), http.StatusOK)
		if remember && (len(d.RememberedRules) != 1 || d.RememberedRules[0] != "network(domain:"+host+")") {
			t.Errorf("remembered %v", d.RememberedRules)
		}
		return result
	}

	t.Run("rejected", func(t *testing.T) {
		text := testwait.Receive(t, decide(rejected, "reject", false))
		if strings.Contains(text, "hello from outside") || !strings.Contains(text, "refused network access to "+rejected) ||
			!strings.Contains(text, "network(domain:127.0.0.2)") {
			t.Fatalf("curl after a rejection: %s", text)
		}
	})
	t.Run("one approval answers the requests of the next minutes", func(t *testing.T) {
		host, port, _ := net.SplitHostPort(approved)
		result := make(chan string, 1)
		go func() {
			text, _ := s.run(t, sid, "twice", "curl -sS --max-time 50 "+approved+"/ & curl -sS --max-time 50 "+approved+"/; wait")
			result <- text
		}()
		ev := waitEvent(t, events, "network.awaiting_approval", func(e api.Event) bool {
			return e.Type == api.EventNetworkAwaitingApproval && e.Approval.Preview.Network.Host == host
		})
		decodeJSON[api.DecisionResponse](t, s.request(t, t.Context(), "POST", "/v1/sessions/"+sid+"/calls/"+ev.ToolUseID+"/decision",
			map[string]any{"decision": "approve"}, ""), http.StatusOK)
		if text := testwait.Receive(t, result); strings.Count(text, "hello from outside") != 2 {
			t.Fatalf("two requests after one approval: %s", text)
		}
		asked := 0
		waitEvent(t, events, "the command's end", func(e api.Event) bool {
			if e.Type == api.EventNetworkAwaitingApproval && strconv.Itoa(e.Approval.Preview.Network.Port) == port {
				asked++
			}
			return e.Type == api.EventToolFinished && e.ToolUseID == "twice"
		})
		if asked != 0 {
			t.Errorf("asked %d more times for the second request, want 0", asked)
		}
		// And a later command's request is not asked about either.
		if text, _ := s.run(t, sid, "later", "curl -sS --max-time 20 "+approved+"/"); !strings.Contains(text, "hello from outside") {
			t.Fatalf("a later request: %s", text)
		}
	})
	t.Run("approved and remembered", func(t *testing.T) {
		// The address rejected before: a rejection is not remembered.
		text := testwait.Receive(t, decide(rejected, "approve", true))
		if !strings.Contains(text, "hello from outside") {
			t.Fatalf("curl after the approval: %s", text)
		}
		sess := decodeJSON[api.Session](t, s.request(t, t.Context(), "GET", "/v1/sessions/"+sid, nil, ""), http.StatusOK)
		if !slices.Contains(sess.Permissions.Allow, "network(domain:127.0.0.2)") {
			t.Fatalf("session allow rules %v, want network(domain:127.0.0.2)", sess.Permissions.Allow)
		}
	})
	t.Run("a private address the config does not allow is refused unasked", func(t *testing.T) {
		text, _ := s.run(t, sid, "private", "curl -sS --max-time 20 127.0.0.3:9/")
		if !strings.Contains(text, "403") && !strings.Contains(text, "loopback") {
			t.Fatalf("curl to 127.0.0.3: %s", text)
		}
	})
}
