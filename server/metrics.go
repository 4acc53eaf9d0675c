package server

import (
	"runtime"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// httpMetrics are the HTTP side's series. The route label is chi's route
// pattern, a bounded set; unmatched requests are labelled "unmatched".
type httpMetrics struct {
	requests       *prometheus.CounterVec
	duration       *prometheus.HistogramVec
	sseSubscribers prometheus.Gauge
	sseDropped     prometheus.Counter
	panics         prometheus.Counter
}

func newHTTPMetrics(reg *prometheus.Registry, version string) *httpMetrics {
	m := &httpMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "toolgate_http_requests_total",
			Help: "HTTP requests answered, by route pattern, method and status code.",
		}, []string{"route", "method", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "toolgate_http_request_duration_seconds",
			Help:    "Time to answer an HTTP request, by route pattern; event streams are not timed (toolgate_sse_subscribers counts them).",
			Buckets: prometheus.DefBuckets,
		}, []string{"route"}),
		sseSubscribers: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "toolgate_sse_subscribers",
			Help: "Server-sent event streams open now.",
		}),
		sseDropped: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "toolgate_sse_dropped_total",
			Help: "Server-sent event streams dropped because the client took nothing for sse_stall_timeout.",
		}),
		panics: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "toolgate_http_panics_total",
			Help: "Route handlers that panicked; each was answered with a 500 and logged with its request id.",
		}),
	}
	build := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "toolgate_build_info",
		Help:        "Always 1; the labels say which build is running.",
		ConstLabels: prometheus.Labels{"version": version, "goversion": runtime.Version()},
	})
	build.Set(1)
	reg.MustRegister(m.requests, m.duration, m.sseSubscribers, m.sseDropped, m.panics, build,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}
