// Package telemetry owns toolgate's tracing set-up: an OpenTelemetry tracer
// provider exporting over OTLP (HTTP or gRPC) when an endpoint is
// configured, and nothing at all otherwise, so a server without tracing
// pays no cost on its hot path. It also carries W3C trace context in and
// out (traceparent headers, MCP _meta). It imports no toolgate layer.
package telemetry
