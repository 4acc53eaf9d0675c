package server

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
	"github.com/go-chi/chi/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// loadSpec parses and validates openapi.yaml.
func loadSpec(t testing.TB) (*openapi3.T, routers.Router) {
	t.Helper()
	registerConsoleDecoders()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(toolgate.OpenAPI)
	if err != nil {
		t.Fatalf("openapi.yaml: %v", err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		t.Fatalf("openapi.yaml is not valid: %v", err)
	}
	doc.Servers = openapi3.Servers{{URL: "/"}} // match requests whatever their host
	router, err := legacy.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	return doc, router
}

// conformance wraps a handler and checks every exchange against the spec:
// each response (and each request answered with 2xx) must be one the spec
// describes. Event streams are checked for status and content type.
type conformance struct {
	router routers.Router
	next   http.Handler
	mu     sync.Mutex
	errs   []string
}

func (c *conformance) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	route, params, err := c.router.FindRoute(r)
	if err != nil {
		c.next.ServeHTTP(w, r) // unrouted paths are the route walk's concern
		return
	}
	var body []byte
	if r.Body != nil {
		body, _ = io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	rec := &recorder{ResponseWriter: w}
	c.next.ServeHTTP(rec, r)

	checkReq := r.Clone(context.Background())
	checkReq.Body = io.NopCloser(bytes.NewReader(body))
	opts := &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, IncludeResponseStatus: true}
	in := &openapi3filter.RequestValidationInput{Request: checkReq, PathParams: params, Route: route, Options: opts}
	if rec.status < 300 {
		if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
			c.fail("%s %s: request: %v", r.Method, r.URL.Path, err)
		}
	}
	respBody := rec.body.Bytes()
	if rec.stream() {
		opts.ExcludeResponseBody = true
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: rec.status, Header: rec.Header(), Body: io.NopCloser(bytes.NewReader(respBody)), Options: opts}
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		c.fail("%s %s -> %d: response: %v", r.Method, r.URL.Path, rec.status, err)
	}
}

func (c *conformance) fail(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.errs = append(c.errs, fmt.Sprintf(format, args...))
}

// recorder keeps the status and, for anything but event streams, the body.
type recorder struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (r *recorder) stream() bool {
	return strings.HasPrefix(r.Header().Get("Content-Type"), "text/event-stream")
}

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(p []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	if !r.stream() {
		r.body.Write(p)
	}
	return r.ResponseWriter.Write(p)
}

func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// Hijack takes the connection over for a protocol switch (a WebSocket
// through a port preview), which is then checked as the 101 it is.
func (r *recorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	if r.status == 0 {
		r.status = http.StatusSwitchingProtocols
	}
	return http.NewResponseController(r.ResponseWriter).Hijack()
}

func (r *recorder) Flush() { http.NewResponseController(r.ResponseWriter).Flush() }

// TestRoutesMatchSpec walks the chi router: every served route must be in
// openapi.yaml, and every path there must be served.
func TestRoutesMatchSpec(t *testing.T) {
	doc, _ := loadSpec(t)
	ws, err := tool.OpenWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	reg := prometheus.NewRegistry()
	h := New(discardLogger(), coordinator.New(coordinator.Options{Workspace: ws, Registerer: reg}), reg, Config{Token: "x"})
	served := map[string]bool{}
	err = chi.Walk(h.(chi.Routes), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		if route != "/" { // the console's root keeps its slash
			route = strings.TrimSuffix(route, "/")
		}
		// chi's catch-all is the spec's {path} parameter.
		route = strings.Replace(route, "/*", "/{path}", 1)
		served[method+" "+route] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	specified := map[string]bool{}
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			specified[method+" "+path] = true
		}
	}
	for _, r := range sortedKeys(served) {
		if !specified[r] {
			t.Errorf("served but not in openapi.yaml: %s", r)
		}
	}
	for _, r := range sortedKeys(specified) {
		if !served[r] {
			t.Errorf("in openapi.yaml but not served: %s", r)
		}
	}
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestSpecServed checks /openapi.yaml is the embedded contract.
func TestSpecServed(t *testing.T) {
	ts := newTestServer(t)
	resp, err := ts.Client().Get(ts.URL + "/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	if !bytes.Equal(got, toolgate.OpenAPI) {
		t.Errorf("served spec differs from openapi.yaml")
	}
}
