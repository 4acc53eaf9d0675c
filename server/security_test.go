package server

import (
	"net/http"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/api"
)

func TestAuth(t *testing.T) {
	ts := newTestServer(t)
	cases := []struct {
		name, header string
		want         int
	}{
		{"missing", "", http.StatusUnauthorized},
		{"wrong", "Bearer nope", http.StatusUnauthorized},
		{"truncated", "Bearer " + testToken[:len(testToken)-1], http.StatusUnauthorized},
		{"longer", "Bearer " + testToken + "x", http.StatusUnauthorized},
		{"not bearer", "Basic " + testToken, http.StatusUnauthorized},
		{"right", "Bearer " + testToken, http.StatusOK},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodGet, ts.URL+"/v1/tools", nil)
			if c.header != "" {
				req.Header.Set("Authorization", c.header)
			}
			resp, err := ts.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != c.want {
				t.Errorf("status = %d, want %d", resp.StatusCode, c.want)
			}
		})
	}
	t.Run("open routes", func(t *testing.T) {
		for _, p := range []string{"/healthz", "/metrics", "/openapi.yaml"} {
			resp, err := ts.Client().Get(ts.URL + p)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("GET %s = %d, want 200", p, resp.StatusCode)
			}
		}
	})
}

func TestHostAndOrigin(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.AllowedOrigins = []string{"https://ide.example"} })
	cases := []struct {
		name, method, path, host, origin string
		want                             int
	}{
		{"loopback host", "GET", "/healthz", "127.0.0.1", "", 200},
		{"localhost host", "GET", "/healthz", "localhost", "", 200},
		{"ipv6 host", "GET", "/healthz", "[::1]", "", 200},
		{"rebinding host", "GET", "/openapi.yaml", "rebind.example:7420", "", 403},
		{"rebinding host, unknown path", "GET", "/nowhere", "rebind.example:7420", "", 403},
		{"probe by pod IP", "GET", "/healthz", "10.1.2.3:7420", "", 200},
		{"scrape by pod IP", "GET", "/metrics", "10.1.2.3:7420", "", 200},
		{"pod IP on the API", "GET", "/v1/tools", "10.1.2.3:7420", "", 403},
		{"rebinding host and origin", "POST", "/v1/tool_use", "rebind.example:7420", "http://rebind.example:7420", 403},
		{"foreign origin GET", "GET", "/v1/tools", "", "https://evil.example", 403},
		{"foreign origin SSE", "GET", "/v1/sessions/default/events", "", "https://evil.example", 403},
		{"foreign origin POST", "POST", "/v1/tool_use", "", "https://evil.example", 403},
		{"null origin", "GET", "/v1/tools", "", "null", 403},
		{"allowed origin", "GET", "/v1/tools", "", "https://ide.example", 200},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var body any
			if c.method == "POST" {
				body = toolUse("t1", "echo", map[string]any{"text": "x"})
			}
			hdr := []string{}
			if c.origin != "" {
				hdr = append(hdr, "Origin", c.origin)
			}
			req := ts.request(t, c.method, c.path, body, hdr...)
			if c.host != "" {
				req.Host = c.host
			}
			resp, err := ts.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != c.want {
				t.Errorf("status = %d, want %d", resp.StatusCode, c.want)
			}
		})
	}
	t.Run("same origin", func(t *testing.T) {
		resp := ts.do(t, "GET", "/v1/tools", nil, "Origin", ts.URL)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("status = %d, want 200", resp.StatusCode)
		}
	})
}

func TestRequestBodies(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.MaxBodyBytes = 4096 })
	send := func(t *testing.T, ctype, body string) (int, api.ErrorResponse) {
		t.Helper()
		req := ts.request(t, "POST", "/v1/tool_use", nil)
		req.Body = http.NoBody
		if body != "" {
			req = ts.request(t, "POST", "/v1/tool_use", nil)
			req.Body = nopCloser{strings.NewReader(body)}
			req.ContentLength = int64(len(body))
		}
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, decodeBody[api.ErrorResponse](t, resp, resp.StatusCode)
	}
	valid := `{"type":"tool_use","id":"a","name":"echo","input":{"text":"x"}}`
	cases := []struct {
		name, ctype, body string
		status            int
		code              string
	}{
		{"text/plain form post", "text/plain", valid, 415, api.CodeUnsupportedMedia},
		{"urlencoded", "application/x-www-form-urlencoded", "a=b", 415, api.CodeUnsupportedMedia},
		{"no content type", "", valid, 415, api.CodeUnsupportedMedia},
		{"too large", "application/json", `{"type":"tool_use","id":"a","name":"echo","input":{"text":"` + strings.Repeat("x", 5000) + `"}}`, 413, api.CodeBodyTooLarge},
		{"deep nesting", "application/json", strings.Repeat("[", 3000), 400, api.CodeInvalidJSON},
		{"malformed", "application/json", `{"type":`, 400, api.CodeInvalidJSON},
		{"unknown field", "application/json", `{"type":"tool_use","id":"a","name":"echo","bogus":1}`, 400, api.CodeValidation},
		{"two values", "application/json", valid + valid, 400, api.CodeInvalidJSON},
		{"missing id", "application/json", `{"type":"tool_use","name":"echo"}`, 400, api.CodeValidation},
		{"wrong type", "application/json", `{"type":"text","id":"a","name":"echo"}`, 400, api.CodeValidation},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, e := send(t, c.ctype, c.body)
			if status != c.status || e.Error == nil || e.Error.Code != c.code {
				t.Errorf("got %d %+v, want %d %s", status, e.Error, c.status, c.code)
			}
		})
	}
	t.Run("json with charset", func(t *testing.T) {
		status, _ := send(t, "application/json; charset=utf-8", valid)
		if status != 200 {
			t.Errorf("status = %d, want 200", status)
		}
	})
}

// TestMessageBodies: the messages route, which reads its body once for
// both an Anthropic message and the OpenAI shapes, answers a body that is
// not one JSON value as POST /v1/tool_use does, each error with its code
// and message, before looking at what the value holds.
func TestMessageBodies(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.MaxBodyBytes = 4096 })
	sess := decodeBody[api.Session](t, ts.do(t, "POST", "/v1/sessions", map[string]any{}), http.StatusCreated)
	send := func(t *testing.T, body string) (int, api.ErrorResponse) {
		t.Helper()
		req := ts.request(t, "POST", "/v1/sessions/"+sess.ID+"/messages", nil)
		req.Body = http.NoBody
		if body != "" {
			req.Body = nopCloser{strings.NewReader(body)}
			req.ContentLength = int64(len(body))
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode == http.StatusOK {
			resp.Body.Close()
			return resp.StatusCode, api.ErrorResponse{}
		}
		return resp.StatusCode, decodeBody[api.ErrorResponse](t, resp, resp.StatusCode)
	}
	msg := func(id string) string {
		return `{"role":"assistant","content":[{"type":"tool_use","id":"` + id + `","name":"echo","input":{"text":"x"}}]}`
	}
	cases := []struct {
		name, body string
		status     int
		code, msg  string
	}{
		{"empty", "", 400, api.CodeInvalidJSON, "request body is empty; a JSON object is required"},
		{"malformed", `{"role":`, 400, api.CodeInvalidJSON, "malformed JSON: unexpected EOF"},
		{"syntax", ` {"role" "assistant"}`, 400, api.CodeInvalidJSON, "malformed JSON at byte 10: invalid character '\"' after object key"},
		{"too large", `{"role":"assistant","content":[{"type":"text","text":"` + strings.Repeat("x", 5000) + `"}]}`, 413, api.CodeBodyTooLarge, "request body is larger than 4096 bytes"},
		{"two values", msg("toolu_m1") + msg("toolu_m2"), 400, api.CodeInvalidJSON, "request body must hold one JSON value"},
		{"unknown field, then junk", `{"role":"assistant","content":[],"bogus":1} x`, 400, api.CodeInvalidJSON, "request body must hold one JSON value"},
		{"unknown field", `{"role":"assistant","content":[],"bogus":1}`, 400, api.CodeValidation, "unknown field bogus"},
		{"wrong type", `{"role":"assistant","content":{}}`, 400, api.CodeValidation, "a field has the wrong type"},
		{"message, trailing space", msg("toolu_m3") + " \n", 200, "", ""},
		{"openai chat message", `{"role":"assistant","tool_calls":[{"id":"call_m4","type":"function","function":{"name":"echo","arguments":"{\"text\":\"x\"}"}}]}`, 200, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, e := send(t, c.body)
			if status != c.status {
				t.Fatalf("status %d %+v, want %d", status, e.Error, c.status)
			}
			if c.code != "" && (e.Error == nil || e.Error.Code != c.code || e.Error.Message != c.msg) {
				t.Errorf("error %+v, want %s %q", e.Error, c.code, c.msg)
			}
		})
	}
}

// TestMessageBlocksChecked: a message's tool_use blocks are checked one
// by one; an invalid block and a repeated id are named by their place in
// the content.
func TestMessageBlocksChecked(t *testing.T) {
	ts := newTestServer(t)
	sess := decodeBody[api.Session](t, ts.do(t, "POST", "/v1/sessions", map[string]any{}), http.StatusCreated)
	block := func(id, name string) map[string]any {
		return map[string]any{"type": "tool_use", "id": id, "name": name, "input": map[string]any{"text": "x"}}
	}
	cases := []struct {
		name   string
		blocks []any
		field  string
		want   string
	}{
		{"repeated id", []any{block("toolu_b1", "echo"), map[string]any{"type": "text", "text": "hi"}, block("toolu_b2", "echo"), block("toolu_b1", "echo")},
			"content[3].id", "duplicates an earlier block's id"},
		{"repeated id, second block", []any{block("toolu_b3", "echo"), block("toolu_b3", "echo")}, "content[1].id", "duplicates an earlier block's id"},
		{"no name", []any{block("toolu_b4", "echo"), block("toolu_b5", "")}, "content[1].name", "is required"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp := ts.do(t, "POST", "/v1/sessions/"+sess.ID+"/messages", map[string]any{"role": "assistant", "content": c.blocks})
			e := decodeBody[api.ErrorResponse](t, resp, http.StatusBadRequest)
			if e.Error == nil || e.Error.Code != api.CodeValidation || e.Error.Fields[c.field] != c.want {
				t.Errorf("error %+v, want %s: %q", e.Error, c.field, c.want)
			}
		})
	}
}
