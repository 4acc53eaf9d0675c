package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/internal/conformance"
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
			} `json:"request"`
			Response struct {
				Code int `json:"code"`
			} `json:"response"`
			RequestError *struct {
				Message string `json:"message"`
			} `json:"requestError"`
		} `json:"executions"`
	} `json:"run"`
}

// TestPostmanCollectionRuns converts openapi.yaml with Postman's own
// converter (openapi-to-postmanv2, parameters from the examples) and runs
// the collection with newman against a real server, setting only the
// token and the server's address. Every exchange goes through a proxy
// that holds it against the contract (kin-openapi: the request, and the
// response's status, headers and body). A request passes when its answer
// is valid and a success, except a request whose required parameter the
// contract says comes from an earlier response (an OpenAPI link, as the
// MCP session id from initialize): the collection as imported holds the
// contract's placeholder there, and the answer must be the error the
// contract lists for it, never a success. The collection must hold every
// operation. TOOLGATE_POSTMAN_DIR holds both npm packages (test.sh
// installs them).
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
	doc, check := newContractProxy(t, inst.url)
	front := httptest.NewServer(check)
	defer front.Close()
	report := filepath.Join(out, "report.json")
	run := exec.CommandContext(ctx, filepath.Join(bin, "newman"), "run", collection,
		"--env-var", "baseUrl="+front.URL, "--env-var", "bearerToken="+inst.token,
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

	bound := linkedOperations(doc)
	succeeded, documented := 0, 0
	for _, ex := range check.exchanges() {
		what := ex.method + " " + ex.path + " (" + ex.op + ")"
		switch {
		case ex.invalid != "":
			t.Errorf("%s -> %d: not as the contract says: %s", what, ex.status, ex.invalid)
		case bound[ex.op]:
			if ex.status < 400 || ex.status > 499 || !ex.listed {
				t.Errorf("%s -> %d %s: want the error the contract lists for the placeholder it holds as imported", what, ex.status, ex.body)
			}
			documented++
		case ex.status >= 300 && ex.status < 400 && ex.listed:
			// A listed redirect, which newman follows: the next exchange.
		case ex.status < 200 || ex.status > 299:
			t.Errorf("%s -> %d %s", what, ex.status, ex.body)
		default:
			succeeded++
		}
	}
	for _, ex := range r.Run.Executions {
		if ex.RequestError != nil {
			t.Errorf("%s %s: %s", ex.Request.Method, ex.Item.Name, ex.RequestError.Message)
		}
	}
	ops := 0
	for _, item := range doc.Paths.Map() {
		ops += len(item.Operations())
	}
	if len(r.Run.Executions) != ops {
		t.Errorf("the collection ran %d requests, want one per operation of openapi.yaml (%d)", len(r.Run.Executions), ops)
	}
	msg := fmt.Sprintf("newman: %d of %d requests of the imported collection succeeded and %d answered the error documented for the placeholder they hold (the MCP session id), every answer valid against openapi.yaml",
		succeeded, len(r.Run.Executions), documented)
	t.Log(msg)
	_ = conformance.Announce("%s", msg) // printed by test.sh
}

// linkedOperations are the operations with a required parameter that an
// OpenAPI link fills from an earlier response ($response...).
func linkedOperations(doc *openapi3.T) map[string]bool {
	out := map[string]bool{}
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			for _, resp := range op.Responses.Map() {
				for _, link := range resp.Value.Links {
					for _, v := range link.Value.Parameters {
						if s, ok := v.(string); ok && strings.HasPrefix(s, "$response.") {
							out[link.Value.OperationID] = true
						}
					}
				}
			}
		}
	}
	return out
}

// specDoc is openapi.yaml, parsed and validated.
func specDoc(t *testing.T) *openapi3.T {
	t.Helper()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(toolgate.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		t.Fatal(err)
	}
	return doc
}
