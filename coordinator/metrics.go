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
// owns. A call is counted under the name its client called it by (Claude
// Code's Edit, the Messages API's str_replace_based_edit_tool, Cline's
// replace_in_file) and its session's dialect, so a dashboard shows the
// tools its users know. Labels come only from bounded sets: registered and
// dialect tool names, the mcp__<server>__<tool> names of the tools
// configured MCP servers list (others are folded into "other"), dialects
// and call statuses.
type Metrics struct {
	calls    *prometheus.CounterVec
	duration *prometheus.HistogramVec
	// series holds each known tool's children, looked up once: a call then
	// finds its series without hashing label values. The map is never
	// changed once published; adding a tool publishes a copy. Speed
	// only: BenchmarkToolMetrics (./coordinator/, docs/benchmarks.md).
	series atomic.Pointer[map[seriesKey]*toolSeries]
	mu     sync.Mutex // serializes adding tools
	// approvalWait times the wait for a decision (metrics_state.go).
	approvalWait prometheus.Histogram
	// timeline keeps the last hour minute by minute (metrics_timeline.go).
	timeline toolTimeline
}

// seriesKey is a tool as one dialect's clients name it.
type seriesKey struct{ dialect, tool string }

// toolSeries are one tool's counters by status and its histogram.
type toolSeries struct {
	// calls holds a counter per status, in api.AllStatuses' order
	// (statusIndex): found beside the histogram, not in a map of its own
	// looked up at each call. Speed only: BenchmarkToolMetricsCold
	// (./coordinator/, docs/benchmarks.md).
	calls    [maxStatuses]prometheus.Counter
	duration prometheus.Observer
}

// maxStatuses bounds the statuses a toolSeries keeps counters for; a
// status past it is counted by label values, as one not started is.
const maxStatuses = 8

// statusIndex is status's place in api.AllStatuses, -1 when it is not
// there or past maxStatuses. A call's status is one of the constants, so
// the comparisons find the same string data and end at once.
func statusIndex(status api.CallStatus) int {
	for i, st := range api.AllStatuses {
		if st == status {
			if i < maxStatuses {
				return i
			}
			break
		}
	}
	return -1
}

// otherTool labels calls whose name is not a registered static tool.
const otherTool = "other"

// NewMetrics registers the coordinator's series on reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "toolgate_tool_calls_total",
			Help: "Tool calls finished, by the tool's name in its dialect, the dialect and the final status.",
		}, []string{"tool", "dialect", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "toolgate_tool_call_duration_seconds",
			Help:    "Time from a tool call's start to its result, less any wait for an approval (toolgate_approval_wait_seconds), by tool and dialect.",
			Buckets: durationBuckets,
		}, []string{"tool", "dialect"}),
	}
	m.series.Store(&map[seriesKey]*toolSeries{})
	reg.MustRegister(m.calls, m.duration)
	m.approvalWait = newApprovalWait(reg)
	return m
}

// start makes every known dialect x tool x status series exist at zero,
// so rates and dashboards work before the first call. tools lists each
// dialect's tool names.
func (m *Metrics) start(tools map[api.Dialect][]string) {
	for d, names := range tools {
		m.addTools(d, append(names, otherTool)...)
	}
}

// addTools makes a dialect's tools' series (each status at zero) if they
// are new.
func (m *Metrics) addTools(d api.Dialect, tools ...string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	old := *m.series.Load()
	var next map[seriesKey]*toolSeries
	for _, t := range tools {
		k := seriesKey{string(d), t}
		if _, ok := old[k]; ok {
			continue
		}
		if next == nil {
			next = make(map[seriesKey]*toolSeries, len(old)+len(tools))
			maps.Copy(next, old)
		}
		ts := &toolSeries{duration: m.duration.WithLabelValues(t, k.dialect)}
		for _, st := range api.AllStatuses {
			c := m.calls.WithLabelValues(t, k.dialect, string(st)) // made at zero, whether kept or not
			if i := statusIndex(st); i >= 0 {
				ts.calls[i] = c
			}
		}
		next[k] = ts
	}
	if next != nil {
		m.series.Store(&next)
	}
}

// known reports whether the dialect's tool has its own series.
func (m *Metrics) known(d api.Dialect, tool string) bool {
	_, ok := (*m.series.Load())[seriesKey{string(d), tool}]
	return ok
}

// observe counts a finished call and times it; a traced call's duration
// carries its trace id as an exemplar, linking the histogram to the trace.
func (m *Metrics) observe(dialect api.Dialect, tool string, status api.CallStatus, d time.Duration, span trace.Span) {
	series := *m.series.Load()
	ts, ok := series[seriesKey{string(dialect), tool}]
	if !ok {
		tool, ts = otherTool, series[seriesKey{string(dialect), otherTool}]
	}
	m.timeline.add(time.Now(), tool, status == api.StatusSucceeded, d)
	if ts == nil { // observed before start: no series were made yet
		m.calls.WithLabelValues(tool, string(dialect), string(status)).Inc()
		observeWithTrace(m.duration.WithLabelValues(tool, string(dialect)), d.Seconds(), span)
		return
	}
	var c prometheus.Counter
	if i := statusIndex(status); i >= 0 {
		c = ts.calls[i]
	} else {
		c = m.calls.WithLabelValues(tool, string(dialect), string(status))
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

// metricDialect is the dialect label of a session's calls: the default
// dialect for a session that names none.
func metricDialect(s *Session) api.Dialect { return orDefaultDialect(s.Dialect()) }

// orDefaultDialect names the dialect d, the default dialect when d is empty.
func orDefaultDialect(d api.Dialect) api.Dialect {
	if d == "" {
		return api.DefaultDialect
	}
	return d
}

// metricTools lists the tool names each dialect's calls are counted under:
// the registry's for cline, each other dialect's own tools, and under
// every dialect the registry's names too (MCP and subagent calls, and a
// dialect session's calls of a registry tool, keep those names).
func (c *Coordinator) metricTools() map[api.Dialect][]string {
	names := c.registry.Names()
	out := map[api.Dialect][]string{api.DefaultDialect: names}
	for _, d := range c.dialectList {
		list := append([]string(nil), names...)
		for _, t := range d.Tools {
			list = append(list, t.Name)
		}
		out[d.Name] = list
	}
	return out
}
