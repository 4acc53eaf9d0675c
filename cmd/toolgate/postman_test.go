package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// newmanReport is the part of newman's JSON report the test reads.
type newmanReport struct {
	Run struct {
		Executions []struct {
			Item struct {
				Name string `json:"name"`
			} `json:"item"`
			Request struct {
				Method string `json:"method"`
				URL    struct {
					Path []string `json:"path"`
				} `json:"url"`
			} `json:"request"`
			Response struct {
				Code   int `json:"code"`
				Stream struct {
					Data []int `json:"data"`
				} `json:"stream"`
			} `json:"response"`
			RequestError *struct {
				Message string `json:"message"`
			} `json:"requestError"`
		} `json:"executions"`
	} `json:"run"`
}

// mcpSessionBound are the requests MCP's transport ties to a session a
// previous response named (the initialize response's Mcp-Session-Id
// header), which a collection run as imported cannot pass on: they must
// be refused for that reason and no other.
var mcpSessionBound = map[string]bool{"GET /mcp": true, "DELETE /mcp": true}

// needsDevServer reports a request to a port preview (/ports/{port}/...):
// it reaches a dev server a command of the session started, which a
// collection run as imported has not; it must be answered 503 naming the
// port that did not answer, and nothing else.
func needsDevServer(path []string) bool {
	return len(path) >= 5 && path[0] == "v1" && path[1] == "sessions" && path[3] == "ports"
}

// TestPostmanCollectionRuns converts openapi.yaml with Postman's own
// converter (openapi-to-postmanv2, parameters from the examples) and runs
// the collection with newman against a real server, setting only the
// token and the server's address: every request must pass as imported.
// TOOLGATE_POSTMAN_DIR holds both npm packages (test.sh installs them).
func TestPostmanCollectionRuns(t *testing.T) {
	dir := os.Getenv("TOOLGATE_POSTMAN_DIR")
	if dir == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("TOOLGATE_POSTMAN_DIR is required in CI (test.sh installs openapi-to-postmanv2 and newman)")
		}
		t.Skip("TOOLGATE_POSTMAN_DIR not set")
	}
	bin := filepath.Join(dir, "node_modules", ".bin")
	out := t.TempDir()
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	collection := filepath.Join(out, "toolgate.postman.json")
	convert := exec.CommandContext(ctx, filepath.Join(bin, "openapi2postmanv2"), "-s", "../../openapi.yaml", "-o", collection,
		"-i", "v2", "-O", "parametersResolution=Example")
	if b, err := convert.CombinedOutput(); err != nil {
		t.Fatalf("convert: %v\n%s", err, b)
	}

	ws := t.TempDir()
	for _, name := range []string{"README.md", "go.mod"} {
		data, err := os.ReadFile(filepath.Join("../..", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	inst := start(t, ws)
	report := filepath.Join(out, "report.json")
	run := exec.CommandContext(ctx, filepath.Join(bin, "newman"), "run", collection,
		"--env-var", "baseUrl="+inst.url, "--env-var", "bearerToken="+inst.token,
		"--timeout-request", "60000", "--reporters", "json", "--reporter-json-export", report)
	if b, err := run.CombinedOutput(); err != nil {
		t.Fatalf("newman: %v\n%s", err, b)
	}
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var r newmanReport
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	passed, bound, devServer := 0, 0, 0
	for _, ex := range r.Run.Executions {
		what := ex.Request.Method + " " + ex.Item.Name
		body := make([]byte, len(ex.Response.Stream.Data))
		for i, b := range ex.Response.Stream.Data {
			body[i] = byte(b)
		}
		switch {
		case mcpSessionBound[ex.Request.Method+" /"+strings.Join(ex.Request.URL.Path, "/")]:
			bound++
			if ex.Response.Code != http.StatusNotFound || !strings.Contains(string(body), "session not found") {
				t.Errorf("%s: %d %s, want 404 session not found", what, ex.Response.Code, body)
			}
		case needsDevServer(ex.Request.URL.Path):
			devServer++
			if ex.Response.Code != http.StatusServiceUnavailable || !strings.Contains(string(body), "did not answer") {
				t.Errorf("%s: %d %s, want 503 naming the port that did not answer", what, ex.Response.Code, body)
			}
		case ex.RequestError != nil:
			t.Errorf("%s: %s", what, ex.RequestError.Message)
		case ex.Response.Code >= 200 && ex.Response.Code < 300:
			passed++
		default:
			t.Errorf("%s: %d %s", what, ex.Response.Code, body)
		}
	}
	t.Logf("newman: %d of %d requests passed as imported; %d need an MCP session id from an earlier response, %d a dev server listening in the session",
		passed, len(r.Run.Executions), bound, devServer)
	if len(r.Run.Executions) < 30 {
		t.Errorf("the collection ran %d requests, want every operation of openapi.yaml", len(r.Run.Executions))
	}
}
