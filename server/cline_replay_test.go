package server

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/internal/mcphub"
)

var updateReplay = flag.Bool("update-replay", false, "rewrite the result sections of testdata/cline/*.txtar with what the server answers")

// The Cline replay suite: each testdata/cline/*.txtar holds an assistant
// message whose tool_use blocks are exactly what Cline v4.0.12's parser
// emits (parse-assistant-message.ts: every parameter a trimmed string,
// task_progress on every tool, <key>0mcp0<tool> names for MCP tools), the
// workspace it runs in, and the golden tool_result texts, each section
// naming the Cline file and function its text follows. The message is
// posted to POST /v1/sessions/{sid}/messages of a real server.
//
// Sections:
//
//	-- config.json --            coordinator config (default: allow_all)
//	-- session.json --           the body of POST /v1/sessions (default {})
//	-- mcp --                    the hub's test MCP server runs as "test"
//	                             (uid mcphub.UID("test") = c2fc1e)
//	-- files/<path> --           a workspace file
//	-- crlf/<path> --            a workspace file written with CRLF line ends
//	-- message.json --           the assistant message
//	-- answer <id> --            the user's answer to an interactive call
//	-- decide <id> --            the user's decision on a call awaiting
//	                             approval (a DecisionRequest as JSON)
//	-- result <id> <status> --   the golden result: its text blocks joined by
//	                             "\n--- next block ---\n", the workspace's
//	                             path written {WS}
//	-- after/<path> --           a workspace file's content after the message
//	-- task_progress --          the session's checklist after the message
//
// A section's content ends with the newline that closes its last line;
// that newline is not part of the text. go test -run ClineReplay
// -update-replay rewrites the result sections (review the diff against
// Cline's source before committing it).
func TestClineReplay(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "cline", "*.txtar"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no replay cases: %v", err)
	}
	for _, p := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(p), ".txtar"), func(t *testing.T) { replayCase(t, p) })
	}
}

// blockSeparator joins the text blocks of one result in a golden section.
const blockSeparator = "\n--- next block ---\n"

func replayCase(t *testing.T, path string) {
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ar := parseArchive(string(raw))
	cfg := coordinator.Config{PolicyConfig: coordinator.PolicyConfig{AllowAll: true}}
	files := map[string]string{}
	answers := map[string]string{}
	decisions := map[string]string{}
	var message json.RawMessage
	session := json.RawMessage("{}")
	var hub *mcphub.Hub
	for _, f := range ar.files {
		switch name := f.name; {
		case name == "config.json":
			if err := json.Unmarshal([]byte(f.data), &cfg); err != nil {
				t.Fatalf("config.json: %v", err)
			}
		case name == "mcp":
			hub = mcphub.New(mcphub.Settings{MCPServers: map[string]mcphub.ServerConfig{"test": {Command: mcpTestServerBin(t), Timeout: 10}}},
				mcphub.Options{MinBackoff: 20 * time.Millisecond})
			hub.Start(t.Context())
			t.Cleanup(hub.Close)
			deadline := time.Now().Add(15 * time.Second)
			for len(hub.Tools()) == 0 {
				if time.Now().After(deadline) {
					t.Fatalf("the test MCP server never connected: %+v", hub.Servers())
				}
				time.Sleep(10 * time.Millisecond)
			}
		case name == "message.json":
			message = json.RawMessage(f.data)
		case name == "session.json":
			session = json.RawMessage(f.data)
		case strings.HasPrefix(name, "files/"):
			files[strings.TrimPrefix(name, "files/")] = f.data
		case strings.HasPrefix(name, "crlf/"):
			files[strings.TrimPrefix(name, "crlf/")] = strings.ReplaceAll(f.data, "\n", "\r\n")
		case strings.HasPrefix(name, "answer "):
			answers[strings.TrimPrefix(name, "answer ")] = strings.TrimSuffix(f.data, "\n")
		case strings.HasPrefix(name, "decide "):
			decisions[strings.TrimPrefix(name, "decide ")] = f.data
		}
	}
	fx := newFixture(t, fixtureOptions{files: files, config: cfg, mcp: hub, server: Config{Token: testToken}})
	ts := &testServer{Server: fx.ts, coord: fx.coord, reg: fx.reg}
	sess := decodeBody[api.Session](t, ts.do(t, "POST", "/v1/sessions", session), http.StatusCreated)

	stop := make(chan struct{})
	answered := make(chan error, 1)
	go func() { answered <- answerCalls(ts, sess.ID, answers, decisions, stop) }()
	resp := decodeBody[api.MessageResponse](t, ts.do(t, "POST", "/v1/sessions/"+sess.ID+"/messages", message), http.StatusOK)
	close(stop)
	if err := receive(t, answered); err != nil {
		t.Error(err)
	}

	got := map[string]string{}
	for i, res := range resp.Message.Content {
		var texts []string
		for _, c := range res.Content {
			if c.Type == api.TypeText {
				texts = append(texts, c.Text)
			}
		}
		// The workspace, a temporary directory, is {WS} in the goldens
		// (Cline names some paths absolute).
		got["result "+res.ToolUseID+" "+string(resp.Calls[i].Status)] = strings.ReplaceAll(strings.Join(texts, blockSeparator), fx.dir, "{WS}")
	}
	if *updateReplay {
		ar.setResults(got)
		if err := os.WriteFile(path, []byte(ar.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	seen := 0
	for _, f := range ar.files {
		switch {
		case strings.HasPrefix(f.name, "result "):
			seen++
			text, ok := got[f.name]
			if !ok {
				t.Errorf("no result %q; the server answered %v", f.name, keys(got))
				continue
			}
			if want := strings.TrimSuffix(f.data, "\n"); text != want {
				t.Errorf("%s:\n got %q\nwant %q", f.name, text, want)
			}
		case f.name == "task_progress":
			got := decodeBody[api.Session](t, ts.do(t, "GET", "/v1/sessions/"+sess.ID, nil), http.StatusOK)
			if want := strings.TrimSuffix(f.data, "\n"); got.TaskProgress != want {
				t.Errorf("session task_progress = %q, want %q", got.TaskProgress, want)
			}
		case strings.HasPrefix(f.name, "after/"):
			data, err := os.ReadFile(filepath.Join(fx.dir, filepath.FromSlash(strings.TrimPrefix(f.name, "after/"))))
			if err != nil || string(data) != f.data {
				t.Errorf("%s: workspace file is %q (%v), want %q", f.name, data, err, f.data)
			}
		}
	}
	if seen != len(got) {
		t.Errorf("the case has %d golden results, the server answered %d: %v", seen, len(got), keys(got))
	}
}

// answerCalls answers the session's interactive calls (answers: the
// text) and its calls awaiting approval (decisions: the DecisionRequest
// JSON) as they come up, until stop is closed.
func answerCalls(ts *testServer, sid string, answers, decisions map[string]string, stop <-chan struct{}) error {
	deadline := time.Now().Add(20 * time.Second)
	done := map[string]bool{}
	for len(done) < len(answers)+len(decisions) {
		select {
		case <-stop:
			return fmt.Errorf("the message finished with answers left unused: %v %v", answers, decisions)
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out waiting for calls to answer")
		}
		for _, kind := range []struct {
			state, path string
			bodies      map[string]string
		}{
			{"awaiting_input", "answer", answers},
			{"awaiting_approval", "decision", decisions},
		} {
			if len(kind.bodies) == 0 {
				continue
			}
			req, _ := http.NewRequest("GET", ts.URL+"/v1/sessions/"+sid+"/calls?state="+kind.state, nil)
			req.Header.Set("Authorization", "Bearer "+testToken)
			resp, err := ts.Client().Do(req)
			if err != nil {
				return err
			}
			var calls api.CallsResponse
			err = json.NewDecoder(resp.Body).Decode(&calls)
			resp.Body.Close()
			if err != nil {
				return err
			}
			for _, c := range calls.Calls {
				text, ok := kind.bodies[c.ToolUseID]
				if !ok || done[c.ToolUseID] {
					continue
				}
				body := []byte(text)
				if kind.path == "answer" {
					body, _ = json.Marshal(api.AnswerRequest{Text: text})
				}
				req, _ := http.NewRequest("POST", ts.URL+"/v1/sessions/"+sid+"/calls/"+c.ToolUseID+"/"+kind.path, bytes.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+testToken)
				req.Header.Set("Content-Type", "application/json")
				resp, err := ts.Client().Do(req)
				if err != nil {
					return err
				}
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					return fmt.Errorf("%s %s: status %d", kind.path, c.ToolUseID, resp.StatusCode)
				}
				done[c.ToolUseID] = true
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	return nil
}

func keys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// archive is a txtar file: a comment, then named sections.
type archive struct {
	comment string
	files   []archiveFile
}

type archiveFile struct{ name, data string }

// parseArchive reads the txtar format: "-- name --" lines start sections.
func parseArchive(s string) *archive {
	a := &archive{}
	cur := &a.comment
	for _, line := range strings.SplitAfter(s, "\n") {
		trimmed := strings.TrimSuffix(line, "\n")
		if strings.HasPrefix(trimmed, "-- ") && strings.HasSuffix(trimmed, " --") && len(trimmed) >= 6 {
			a.files = append(a.files, archiveFile{name: strings.TrimSpace(trimmed[3 : len(trimmed)-3])})
			cur = &a.files[len(a.files)-1].data
			continue
		}
		*cur += line
	}
	return a
}

// setResults replaces the result sections with got, in block order of the
// existing sections, new ones at the end.
func (a *archive) setResults(got map[string]string) {
	var files []archiveFile
	for _, f := range a.files {
		if !strings.HasPrefix(f.name, "result ") {
			files = append(files, f)
		}
	}
	for _, k := range keys(got) {
		files = append(files, archiveFile{name: k, data: got[k] + "\n"})
	}
	a.files = files
}

func (a *archive) String() string {
	var b strings.Builder
	b.WriteString(a.comment)
	for _, f := range a.files {
		fmt.Fprintf(&b, "-- %s --\n%s", f.name, f.data)
	}
	return b.String()
}
