package coordinator

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/toolgate/toolgate/api"
)

// Metrics are the coordinator's Prometheus series, on a registry the caller
// owns. Labels come only from bounded sets: registered tool names (others
// are folded into "other") and call statuses.
type Metrics struct {
	calls    *prometheus.CounterVec
	duration *prometheus.HistogramVec
	known    map[string]bool
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
		known: map[string]bool{},
	}
	reg.MustRegister(m.calls, m.duration)
	return m
}

// start makes every known tool x status series exist at zero, so rates and
// dashboards work before the first call.
func (m *Metrics) start(tools []string) {
	for _, t := range append(tools, otherTool) {
		m.known[t] = true
		for _, st := range api.AllStatuses {
			m.calls.WithLabelValues(t, string(st))
		}
		m.duration.WithLabelValues(t)
	}
}

func (m *Metrics) observe(tool string, status api.CallStatus, d time.Duration) {
	if !m.known[tool] {
		tool = otherTool
	}
	m.calls.WithLabelValues(tool, string(status)).Inc()
	m.duration.WithLabelValues(tool).Observe(d.Seconds())
}
