package server

import (
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

func TestOriginRules(t *testing.T) {
	rules := compileOrigins([]string{
		"https://ide.example.com",
		"vscode-webview://*",
		"https://*.github.dev",
		"http://localhost:*",
		"HTTPS://Upper.Example/",
	}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	tests := []struct {
		origin string
		want   bool
	}{
		{"https://ide.example.com", true},
		{"https://IDE.example.com", true},
		{"https://upper.example", true},
		{"http://ide.example.com", false},
		{"https://ide.example.com:8443", false},
		{"https://ide.example.com.evil.test", false},
		{"vscode-webview://1a2b3c4d5e", true},
		{"vscode-webview://", false},
		{"vscode-webview://a/b", false},
		{"vscode-webview://a@b", false},
		{"vscode-file://x", false},
		{"https://abc-123.github.dev", true},
		{"https://a.b.github.dev", true},
		{"https://github.dev", false},
		{"https://.github.dev", false},
		{"https://evilgithub.dev", false},
		{"https://x.github.dev.evil.test", false},
		{"https://x.github.dev:444", true},
		{"http://x.github.dev", false},
		{"http://localhost:3000", true},
		{"http://localhost:", false},
		{"http://localhost:3000x", false},
		{"http://localhost.evil.test:3000", false},
		{"http://localhost", false},
		{"null", false},
		{"", false},
		{"*", false},
	}
	for _, tt := range tests {
		t.Run(strconv.Quote(tt.origin), func(t *testing.T) {
			if got := rules.allows(tt.origin); got != tt.want {
				t.Errorf("allows(%q) = %v, want %v", tt.origin, got, tt.want)
			}
		})
	}
}

func TestOriginPatternsThatWouldAdmitEverySiteAreDropped(t *testing.T) {
	for _, entry := range []string{"*", "http://*", "https://*", "https://*.com", "*://x", "https://*example.com",
		"http://localhost*", "https://*.*.example.com", "https://a.*.example.com", "http://*:*"} {
		t.Run(entry, func(t *testing.T) {
			var logs strings.Builder
			rules := compileOrigins([]string{entry}, slog.New(slog.NewTextHandler(&logs, nil)))
			for _, origin := range []string{"https://evil.test", "http://evil.test", "https://x.example.com", "http://localhost.evil.test"} {
				if rules.allows(origin) {
					t.Errorf("pattern %q allows %q", entry, origin)
				}
			}
			if !strings.Contains(logs.String(), "origin pattern ignored") {
				t.Errorf("no warning logged for %q; logs: %s", entry, logs.String())
			}
		})
	}
}

func TestCORS(t *testing.T) {
	const ide = "http://ide.test:5173"
	env := newWebEnv(t, func(c *Config) { c.AllowedOrigins = []string{ide, "vscode-webview://*"} }, nil)
	preflight := func(origin, method string) map[string]string {
		return map[string]string{"Origin": origin, "Access-Control-Request-Method": method,
			"Access-Control-Request-Headers": "authorization, content-type, last-event-id"}
	}

	t.Run("preflight from an allowed origin", func(t *testing.T) {
		for _, origin := range []string{ide, "vscode-webview://0abc"} {
			resp := env.do(t, http.MethodOptions, "/v1/sessions", "", preflight(origin, "POST"))
			if resp.StatusCode != http.StatusNoContent {
				t.Fatalf("status = %d, want 204", resp.StatusCode)
			}
			for k, want := range map[string]string{
				"Access-Control-Allow-Origin":  origin,
				"Access-Control-Allow-Headers": "Authorization, Content-Type, Last-Event-ID, Prefer",
				"Access-Control-Allow-Methods": "GET, POST, PATCH, DELETE",
			} {
				if got := resp.Header.Get(k); got != want {
					t.Errorf("%s = %q, want %q", k, got, want)
				}
			}
			if got := resp.Header.Get("Access-Control-Allow-Credentials"); got != "" {
				t.Errorf("Access-Control-Allow-Credentials = %q, want none", got)
			}
		}
	})
	t.Run("preflight from another origin gets 403 and no allow headers", func(t *testing.T) {
		for _, origin := range []string{"http://evil.test", "null", "http://ide.test:5174"} {
			resp := env.do(t, http.MethodOptions, "/v1/sessions", "", preflight(origin, "POST"))
			if resp.StatusCode != http.StatusForbidden {
				t.Errorf("%s: status = %d, want 403", origin, resp.StatusCode)
			}
			for k := range resp.Header {
				if strings.HasPrefix(k, "Access-Control-") {
					t.Errorf("%s: response has %s", origin, k)
				}
			}
		}
	})
	t.Run("responses to an allowed origin are readable", func(t *testing.T) {
		resp := env.do(t, http.MethodGet, "/v1/tools", "", auth(map[string]string{"Origin": ide}))
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status = %d, want 200", resp.StatusCode)
		}
		if got := resp.Header.Get("Access-Control-Allow-Origin"); got != ide {
			t.Errorf("Access-Control-Allow-Origin = %q, want %q", got, ide)
		}
		if got := resp.Header.Get("Access-Control-Expose-Headers"); !strings.Contains(got, "Location") {
			t.Errorf("Access-Control-Expose-Headers = %q, want Location in it", got)
		}
	})
	t.Run("no origin, no CORS headers", func(t *testing.T) {
		resp := env.do(t, http.MethodGet, "/v1/tools", "", auth(nil))
		if got := resp.Header.Get("Access-Control-Allow-Origin"); got != "" {
			t.Errorf("Access-Control-Allow-Origin = %q, want none", got)
		}
	})
}

func TestForeignOriginRefusedOnEveryRoute(t *testing.T) {
	env := newWebEnv(t, nil, nil)
	routes := []struct{ method, path, body string }{
		{"GET", "/", ""},
		{"GET", "/console/console.js", ""},
		{"GET", "/healthz", ""},
		{"GET", "/metrics", ""},
		{"GET", "/v1/tools", ""},
		{"POST", "/v1/sessions", "{}"},
		{"POST", "/v1/tool_use", `{"type":"tool_use","id":"t1","name":"list_files","input":{"path":"."}}`},
		{"GET", "/v1/sessions/default/events", ""},
		{"POST", "/v1/sse-tickets", `{"session":"default"}`},
		{"DELETE", "/v1/sessions/default", ""},
		{"OPTIONS", "/v1/tools", ""},
	}
	for _, origin := range []string{"http://evil.test", "null", "http://127.0.0.1:1", "file://"} {
		for _, rt := range routes {
			t.Run(origin+" "+rt.method+" "+rt.path, func(t *testing.T) {
				h := auth(map[string]string{"Origin": origin, "Accept": "text/event-stream"})
				if rt.body != "" {
					h["Content-Type"] = "application/json"
				}
				resp := env.do(t, rt.method, rt.path, rt.body, h)
				if resp.StatusCode != http.StatusForbidden {
					t.Errorf("status = %d, want 403", resp.StatusCode)
				}
				if got := resp.Header.Get("Access-Control-Allow-Origin"); got != "" {
					t.Errorf("Access-Control-Allow-Origin = %q, want none", got)
				}
			})
		}
	}
}

func TestDNSRebindingShapedRequests(t *testing.T) {
	env := newWebEnv(t, nil, nil)
	port := strconv.Itoa(env.Port)
	for _, host := range []string{"rebind.example:" + port, "rebind.example", "127.0.0.1.nip.io:" + port, "localhost.evil.test:" + port} {
		for _, path := range []string{"/", "/v1/tools", "/v1/sessions/default/events", "/healthz"} {
			t.Run(host+path, func(t *testing.T) {
				resp := env.do(t, "GET", path, "", auth(map[string]string{"Host": host, "Origin": "http://" + host}))
				if resp.StatusCode != http.StatusForbidden {
					t.Errorf("status = %d, want 403", resp.StatusCode)
				}
			})
		}
	}
	t.Run("same-origin console request passes", func(t *testing.T) {
		resp := env.do(t, "GET", "/v1/tools", "", auth(map[string]string{"Origin": env.URL}))
		if resp.StatusCode != http.StatusOK {
			t.Errorf("status = %d, want 200", resp.StatusCode)
		}
	})
}

func TestCrossSiteRequestsWithoutOrigin(t *testing.T) {
	env := newWebEnv(t, nil, nil)
	tests := []struct {
		name, path, mode string
		want             int
	}{
		{"script tag on the API", "/v1/tools", "no-cors", http.StatusForbidden},
		{"image tag on metrics", "/metrics", "no-cors", http.StatusForbidden},
		{"link to the console", "/", "navigate", http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := env.do(t, "GET", tt.path, "", auth(map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": tt.mode}))
			if resp.StatusCode != tt.want {
				t.Errorf("status = %d, want %d", resp.StatusCode, tt.want)
			}
		})
	}
}

func TestCheckOrigins(t *testing.T) {
	good := []string{"https://ide.example", "http://localhost:5173", "vscode-webview://*", "https://*.example.com", "http://127.0.0.1:*", "https://ide.example/"}
	if err := CheckOrigins(good); err != nil {
		t.Errorf("good origins refused: %v", err)
	}
	for _, bad := range []string{"*", "https://*", "https://*.com", "ide.example", "https://ide.example/path", "https://u@ide.example", "http://localhost*"} {
		t.Run(bad, func(t *testing.T) {
			err := CheckOrigins([]string{"https://ok.example", bad})
			if err == nil || !strings.Contains(err.Error(), strconv.Quote(bad)) {
				t.Errorf("CheckOrigins(%q) = %v, want an error naming it", bad, err)
			}
		})
	}
}
