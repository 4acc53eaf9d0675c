package server

import (
	"net/http"
	"runtime"
	"strconv"
	"sync"

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
	// series holds each route, method and code's children, looked up by
	// label values once: requestKey -> *requestSeries.
	series sync.Map
}

// requestKey names a request's series.
type requestKey struct {
	route, method string
	code          int
	timed         bool // the request is timed (it is not an event stream)
}

// requestSeries are the children a request counts and times itself in;
// duration is nil for a request that is not timed, so that no empty
// latency series appears for an event stream's route.
type requestSeries struct {
	requests prometheus.Counter
	duration prometheus.Observer
}

// seriesFor is the series of a request to route with method, answered
// with code. The children are kept, not looked up by label values for
// every request: that hashed and compared three labels twice and made the
// code's string. Speed only: BenchmarkRequestMetrics (./server/,
// docs/benchmarks.md). The keys are bounded as the labels are: routes
// are chi's patterns, methods methodLabel's, codes HTTP's.
func (m *httpMetrics) seriesFor(route, method string, code int, timed bool) *requestSeries {
	k := requestKey{route: route, method: methodLabel(method), code: code, timed: timed}
	if s, ok := m.series.Load(k); ok {
		return s.(*requestSeries)
	}
	s := &requestSeries{requests: m.requests.WithLabelValues(k.route, k.method, strconv.Itoa(code))}
	if timed {
		s.duration = m.duration.WithLabelValues(k.route)
	}
	actual, _ := m.series.LoadOrStore(k, s)
	return actual.(*requestSeries)
}

// methodLabel is a request's method as a label: one of HTTP's methods, or
// "other". net/http takes any token as a method, and a series for each
// would let any client grow /metrics without end.
func methodLabel(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodConnect, http.MethodOptions, http.MethodTrace:
		return method
	}
	return "other"
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
