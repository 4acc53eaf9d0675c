package coordinator

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/toolgate/toolgate/api"
)

// stateCollector reports what is live right now (sessions, approvals
// waiting, commands running, MCP servers by state), read at scrape time
// from the sessions and the hub, so calls pay nothing for these series.
type stateCollector struct {
	c         *Coordinator
	sessions  *prometheus.Desc
	approvals *prometheus.Desc
	commands  *prometheus.Desc
	mcp       *prometheus.Desc
}

// mcpStates are the states an MCP server can be in; each is reported,
// at zero when no server is in it, so a dashboard's series never vanish.
var mcpStates = []string{"connecting", "connected", "disconnected", "disabled"}

func newStateCollector(c *Coordinator) *stateCollector {
	return &stateCollector{
		c:         c,
		sessions:  prometheus.NewDesc("toolgate_sessions", "Sessions alive now, the default one included.", nil, nil),
		approvals: prometheus.NewDesc("toolgate_approvals_waiting", "Tool calls waiting for the user's approval now.", nil, nil),
		commands:  prometheus.NewDesc("toolgate_commands_running", "Command tool calls running now.", nil, nil),
		mcp:       prometheus.NewDesc("toolgate_mcp_servers", "Configured MCP servers, by connection state.", []string{"state"}, nil),
	}
}

func (sc *stateCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- sc.sessions
	ch <- sc.approvals
	ch <- sc.commands
	ch <- sc.mcp
}

func (sc *stateCollector) Collect(ch chan<- prometheus.Metric) {
	live := sc.c.sessions.List()
	var waiting, running int
	for _, s := range live {
		s.mu.Lock()
		for _, e := range s.calls {
			switch e.record.State {
			case api.StateAwaitingApproval:
				waiting++
			case api.StateRunning:
				if t, _ := sc.c.registry.lookup(e.record.Name); t != nil && t.RunsCommands() {
					running++
				}
			}
		}
		s.mu.Unlock()
	}
	ch <- prometheus.MustNewConstMetric(sc.sessions, prometheus.GaugeValue, float64(len(live)))
	ch <- prometheus.MustNewConstMetric(sc.approvals, prometheus.GaugeValue, float64(waiting))
	ch <- prometheus.MustNewConstMetric(sc.commands, prometheus.GaugeValue, float64(running))
	byState := map[string]int{}
	if sc.c.mcp != nil {
		for _, srv := range sc.c.mcp.Servers() {
			byState[srv.State]++
		}
	}
	for _, st := range mcpStates {
		ch <- prometheus.MustNewConstMetric(sc.mcp, prometheus.GaugeValue, float64(byState[st]), st)
	}
}

// approvalWait times how long calls waited for a decision, whatever the
// decision (approve, reject, timeout, cancel).
func newApprovalWait(reg prometheus.Registerer) prometheus.Histogram {
	h := prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "toolgate_approval_wait_seconds",
		Help:    "Time tool calls waited for the user's decision.",
		Buckets: []float64{.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600},
	})
	reg.MustRegister(h)
	return h
}

// observeApprovalWait is deferred with the time the wait began.
func (m *Metrics) observeApprovalWait(since time.Time) {
	if m.approvalWait != nil {
		m.approvalWait.Observe(time.Since(since).Seconds())
	}
}
