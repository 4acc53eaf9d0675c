package telemetry

import (
	"context"
	"fmt"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// Config is the telemetry section of toolgate's config file. The standard
// OTEL_EXPORTER_OTLP_* variables work too and fill what it leaves empty.
type Config struct {
	// OTLPEndpoint is the collector's URL, e.g. http://127.0.0.1:4318
	// (HTTP) or http://127.0.0.1:4317 (gRPC). Empty: tracing is off
	// unless OTEL_EXPORTER_OTLP_ENDPOINT is set.
	OTLPEndpoint string `json:"otlp_endpoint,omitempty"`
	// OTLPProtocol is "http/protobuf" (the default) or "grpc".
	OTLPProtocol string `json:"otlp_protocol,omitempty"`
}

// Tracing is the tracer provider calls use; Enabled is false when no
// endpoint is configured, and then Provider is a no-op.
type Tracing struct {
	Provider trace.TracerProvider
	Enabled  bool
	shutdown func(context.Context) error
}

// Off is tracing that records nothing.
func Off() *Tracing {
	return &Tracing{Provider: noop.NewTracerProvider(), shutdown: func(context.Context) error { return nil }}
}

// Setup builds the tracer provider the config and environment ask for.
func Setup(ctx context.Context, cfg Config, getenv func(string) string, version string) (*Tracing, error) {
	// The endpoint is resolved here rather than by the exporters, so the
	// getenv run() was given is the one that counts. A signal-specific
	// URL is used as it is; a base URL gets the signal's path (HTTP).
	traceURL := getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
	base := firstNonEmpty(cfg.OTLPEndpoint, getenv("OTEL_EXPORTER_OTLP_ENDPOINT"))
	if cfg.OTLPEndpoint != "" {
		traceURL = "" // the config file's endpoint wins over the environment
	}
	if base == "" && traceURL == "" {
		return Off(), nil
	}
	protocol := firstNonEmpty(cfg.OTLPProtocol, getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"), getenv("OTEL_EXPORTER_OTLP_PROTOCOL"), "http/protobuf")
	var exp sdktrace.SpanExporter
	var err error
	switch protocol {
	case "http/protobuf", "http":
		u := traceURL
		if u == "" {
			u = strings.TrimSuffix(base, "/") + "/v1/traces"
		}
		exp, err = otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(u))
	case "grpc":
		exp, err = otlptracegrpc.New(ctx, otlptracegrpc.WithEndpointURL(firstNonEmpty(traceURL, base)))
	default:
		return nil, fmt.Errorf("telemetry: otlp_protocol %q: want http/protobuf or grpc", protocol)
	}
	if err != nil {
		return nil, fmt.Errorf("telemetry: %w", err)
	}
	return WithExporter(exp, version), nil
}

// WithExporter is tracing that batches spans to exp; tests pass an
// in-memory exporter.
func WithExporter(exp sdktrace.SpanExporter, version string) *Tracing {
	res := resource.NewSchemaless(
		attribute.String("service.name", "toolgate"),
		attribute.String("service.version", version),
	)
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp, sdktrace.WithBatchTimeout(time.Second)), sdktrace.WithResource(res))
	return &Tracing{Provider: tp, Enabled: true, shutdown: tp.Shutdown}
}

// Shutdown flushes spans still buffered; call it once, at exit.
func (t *Tracing) Shutdown(ctx context.Context) error { return t.shutdown(ctx) }

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
