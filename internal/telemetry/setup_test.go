package telemetry

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
)

// received collects the span names an OTLP receiver was sent.
type received chan string

func (r received) add(req *collectortrace.ExportTraceServiceRequest) {
	for _, rs := range req.GetResourceSpans() {
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				r <- s.GetName()
			}
		}
	}
}

// grpcReceiver is a real OTLP/gRPC trace service.
type grpcReceiver struct {
	collectortrace.UnimplementedTraceServiceServer
	got received
}

func (g *grpcReceiver) Export(_ context.Context, req *collectortrace.ExportTraceServiceRequest) (*collectortrace.ExportTraceServiceResponse, error) {
	g.got.add(req)
	return &collectortrace.ExportTraceServiceResponse{}, nil
}

func waitSpan(t *testing.T, got received, name string) {
	t.Helper()
	select {
	case n := <-got:
		if n != name {
			t.Errorf("span %q, want %q", n, name)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("no span reached the receiver")
	}
}

func emit(t *testing.T, tr *Tracing, name string) {
	t.Helper()
	_, span := tr.Provider.Tracer("test").Start(context.Background(), name)
	span.End()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := tr.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestOTLPOverHTTP(t *testing.T) {
	got := make(received, 8)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/traces" {
			http.NotFound(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var req collectortrace.ExportTraceServiceRequest
		if err := proto.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		got.add(&req)
		w.Header().Set("Content-Type", "application/x-protobuf")
		b, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
		_, _ = w.Write(b)
	}))
	defer srv.Close()
	tr, err := Setup(context.Background(), Config{OTLPEndpoint: srv.URL}, func(string) string { return "" }, "test")
	if err != nil {
		t.Fatal(err)
	}
	if !tr.Enabled {
		t.Fatal("an endpoint was configured, tracing is off")
	}
	emit(t, tr, "over-http")
	waitSpan(t, got, "over-http")
}

func TestOTLPOverGRPC(t *testing.T) {
	got := make(received, 8)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer()
	collectortrace.RegisterTraceServiceServer(gs, &grpcReceiver{got: got})
	go func() { _ = gs.Serve(ln) }()
	defer gs.Stop()
	env := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://" + ln.Addr().String(), "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}
	tr, err := Setup(context.Background(), Config{}, func(k string) string { return env[k] }, "test")
	if err != nil {
		t.Fatal(err)
	}
	emit(t, tr, "over-grpc")
	waitSpan(t, got, "over-grpc")
}

func TestOffWithoutEndpoint(t *testing.T) {
	tr, err := Setup(context.Background(), Config{}, func(string) string { return "" }, "test")
	if err != nil {
		t.Fatal(err)
	}
	if tr.Enabled {
		t.Error("tracing is on without an endpoint")
	}
	if _, err := Setup(context.Background(), Config{OTLPEndpoint: "http://x", OTLPProtocol: "carrier-pigeon"}, func(string) string { return "" }, "t"); err == nil {
		t.Error("an unknown protocol was accepted")
	}
}
