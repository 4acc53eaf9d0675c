package coordinator

import (
	"maps"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/toolgate/toolgate/api"
	"go.opentelemetry.io/otel/trace"
)

// Metrics are the coordinator's Prometheus series, on a registry the caller
// owns. Labels come only from bounded sets: registered tool names, the
// mcp__<server>__<tool> names of the tools configured MCP servers list
// (others are folded into "other"), and call statuses.
type Metrics struct {
	calls    *prometheus.CounterVec
	duration *prometheus.HistogramVec
	// series holds each known tool's children, looked up once: a call then
	// finds its series without hashing label values. The map is never
	// changed once published; adding a tool publishes a copy.
	series atomic.Pointer[map[string]*toolSeries]
	mu     sync.Mutex // serializes adding tools
	// approvalWait times the wait for a decision (metrics_state.go).
	approvalWait prometheus.Histogram
}

// toolSeries are one tool's counters by status and its histogram.
type toolSeries struct {
	calls    map[api.CallStatus]prometheus.Counter
	duration prometheus.Observer
}

// otherTool labels calls whose name is not a registered static tool.
const otherTool = "other"

// NewMetrics registers the coordinator's series on reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "toolgate_tool_calls_total",
			Help: "Tool calls finished, by tool and final status.",
		}, []string{"tool", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "toolgate_tool_call_duration_seconds",
			Help:    "Time from a tool call's start to its result, by tool.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300},
		}, []string{"tool"}),
	}
	m.series.Store(&map[string]*toolSeries{})
	reg.MustRegister(m.calls, m.duration)
	m.approvalWait = newApprovalWait(reg)
	return m
}

// start makes every known tool x status series exist at zero, so rates and
// dashboards work before the first call.
func (m *Metrics) start(tools []string) {
	m.addTools(append(tools, otherTool)...)
}

// addTools makes the tools' series (each status at zero) if they are new.
func (m *Metrics) addTools(tools ...string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	old := *m.series.Load()
	var next map[string]*toolSeries
	for _, t := range tools {
		if _, ok := old[t]; ok {
			continue
		}
		if next == nil {
			next = make(map[string]*toolSeries, len(old)+len(tools))
			maps.Copy(next, old)
		}
		ts := &toolSeries{calls: map[api.CallStatus]prometheus.Counter{}, duration: m.duration.WithLabelValues(t)}
		for _, st := range api.AllStatuses {
			ts.calls[st] = m.calls.WithLabelValues(t, string(st))
		}
		next[t] = ts
	}
	if next != nil {
		m.series.Store(&next)
	}
}

// known reports whether the tool has its own series.
func (m *Metrics) known(tool string) bool {
	_, ok := (*m.series.Load())[tool]
	return ok
}

// observe counts a finished call and times it; a traced call's duration
// carries its trace id as an exemplar, linking the histogram to the trace.
func (m *Metrics) observe(tool string, status api.CallStatus, d time.Duration, span trace.Span) {
	series := *m.series.Load()
	ts, ok := series[tool]
	if !ok {
		tool, ts = otherTool, series[otherTool]
	}
	if ts == nil { // observed before start: no series were made yet
		m.calls.WithLabelValues(tool, string(status)).Inc()
		observeWithTrace(m.duration.WithLabelValues(tool), d.Seconds(), span)
		return
	}
	c, ok := ts.calls[status]
	if !ok {
		c = m.calls.WithLabelValues(tool, string(status))
	}
	c.Inc()
	observeWithTrace(ts.duration, d.Seconds(), span)
}

// observeWithTrace observes v, with the span's trace id as an exemplar
// when the call was traced and sampled.
func observeWithTrace(o prometheus.Observer, v float64, span trace.Span) {
	if span != nil {
		if sc := span.SpanContext(); sc.IsSampled() {
			if eo, ok := o.(prometheus.ExemplarObserver); ok {
				eo.ObserveWithExemplar(v, prometheus.Labels{"trace_id": sc.TraceID().String()})
				return
			}
		}
	}
	o.Observe(v)
}
