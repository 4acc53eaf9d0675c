package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
)

// exchange is one request a contract proxy passed on, and its verdict.
type exchange struct {
	method, path, op string
	status           int
	listed           bool   // the operation lists the status itself (not default)
	invalid          string // why the exchange is not as the contract says
	body             string // the start of the answer, for a failure's message
}

// contractProxy passes each request on to a toolgate and holds the
// exchange against openapi.yaml, as server/openapi_test.go's conformance
// check does in-process: a request answered with 2xx must be valid, and
// every response (status, headers, body; an event stream by status and
// type) must be one the contract describes.
type contractProxy struct {
	target string
	router routers.Router
	client *http.Client
	mu     sync.Mutex
	log    []exchange
}

// newContractProxy is a contract proxy in front of the toolgate at target.
func newContractProxy(t *testing.T, target string) (*openapi3.T, *contractProxy) {
	t.Helper()
	for _, ct := range []string{"text/html", "text/css", "text/javascript", "application/openmetrics-text", "application/x-ndjson", "text/csv"} {
		openapi3filter.RegisterBodyDecoder(ct, openapi3filter.PlainBodyDecoder)
	}
	doc := specDoc(t)
	doc.Servers = openapi3.Servers{{URL: "/"}}
	router, err := legacy.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	return doc, &contractProxy{target: target, router: router, client: &http.Client{
		// Redirects reach the client, which follows them through the proxy.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

func (p *contractProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	out, err := http.NewRequestWithContext(r.Context(), r.Method, p.target+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	out.Header = r.Header.Clone()
	resp, err := p.client.Do(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	respBody, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	p.record(r, body, resp, respBody)
	for k, vs := range resp.Header {
		if k != "Content-Length" && k != "Transfer-Encoding" && k != "Connection" {
			w.Header()[k] = vs
		}
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(respBody)
}

// record checks one exchange against the contract and keeps its verdict.
func (p *contractProxy) record(r *http.Request, body []byte, resp *http.Response, respBody []byte) {
	ex := exchange{method: r.Method, path: r.URL.Path, status: resp.StatusCode, body: string(respBody[:min(len(respBody), 300)])}
	probe := r.Clone(context.Background())
	probe.Body = io.NopCloser(bytes.NewReader(body))
	route, params, err := p.router.FindRoute(probe)
	if err == nil && route.Operation.OperationID == "previewPortRoot" && strings.HasSuffix(r.URL.Path, "/") {
		// The router folds a trailing slash into {port}: /ports/{port}/ is
		// the preview's root page, checked as /ports/{port}/{path}.
		probe.URL.Path += "index.html"
		route, params, err = p.router.FindRoute(probe)
	}
	if err != nil {
		ex.invalid = "no operation: " + err.Error()
		p.add(ex)
		return
	}
	ex.op = route.Operation.OperationID
	ex.listed = route.Operation.Responses.Status(resp.StatusCode) != nil
	opts := &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, IncludeResponseStatus: true}
	in := &openapi3filter.RequestValidationInput{Request: probe, PathParams: params, Route: route, Options: opts}
	if resp.StatusCode < 300 {
		if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
			ex.invalid = "request: " + err.Error()
		}
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		opts.ExcludeResponseBody = true
	}
	check := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: resp.StatusCode, Header: resp.Header,
		Body: io.NopCloser(bytes.NewReader(respBody)), Options: opts}
	if err := openapi3filter.ValidateResponse(context.Background(), check); err != nil && ex.invalid == "" {
		ex.invalid = "response: " + err.Error()
	}
	p.add(ex)
}

func (p *contractProxy) add(ex exchange) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.log = append(p.log, ex)
}

// exchanges are the exchanges so far, in order.
func (p *contractProxy) exchanges() []exchange {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]exchange(nil), p.log...)
}
