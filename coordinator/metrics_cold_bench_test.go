package coordinator

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/internal/benchpair"
)

// mapSeries is toolSeries as it was: the counters by status in a map of
// their own.
type mapSeries struct {
	calls    map[api.CallStatus]prometheus.Counter
	duration prometheus.Observer
}

// observeByMap is Metrics.observe as it was, over series of mapSeries:
// BenchmarkToolMetricsCold's baseline.
func observeByMap(m *Metrics, published *atomic.Pointer[map[seriesKey]*mapSeries], dialect api.Dialect, tool string, status api.CallStatus, d time.Duration) {
	series := *published.Load()
	ts, ok := series[seriesKey{string(dialect), tool}]
	if !ok {
		tool, ts = otherTool, series[seriesKey{string(dialect), otherTool}]
	}
	m.timeline.add(time.Now(), tool, status == api.StatusSucceeded, d)
	c, ok := ts.calls[status]
	if !ok {
		c = m.calls.WithLabelValues(tool, string(dialect), string(status))
	}
	c.Inc()
	observeWithTrace(ts.duration, d.Seconds(), nil)
}

// BenchmarkToolMetricsCold counts a finished read_file call (41 tools in
// each of four dialects) through Metrics.observe, its counter found by
// the status's place beside the histogram, against observeByMap, which
// looks the counter up in a map of its own, each call timed alone after
// 4 or 64 MiB written (benchpair.Cold).
//
//	go test -run '^$' -bench ToolMetricsCold -benchtime 2000x -count 3 ./coordinator/
func BenchmarkToolMetricsCold(b *testing.B) {
	var tools []string
	for i := range 40 {
		tools = append(tools, fmt.Sprintf("tool_%d", i))
	}
	tools = append(tools, "read_file")
	dialects := []api.Dialect{api.DialectCline, "claude-code", "anthropic", "codex"}
	fast, plain := NewMetrics(prometheus.NewRegistry()), NewMetrics(prometheus.NewRegistry())
	byDialect := map[api.Dialect][]string{}
	for _, d := range dialects {
		byDialect[d] = tools
	}
	fast.start(byDialect)
	series := map[seriesKey]*mapSeries{}
	for _, d := range dialects {
		for _, t := range append(tools, otherTool) {
			ms := &mapSeries{calls: map[api.CallStatus]prometheus.Counter{}, duration: plain.duration.WithLabelValues(t, string(d))}
			for _, st := range api.AllStatuses {
				ms.calls[st] = plain.calls.WithLabelValues(t, string(d), string(st))
			}
			series[seriesKey{string(d), t}] = ms
		}
	}
	var published atomic.Pointer[map[seriesKey]*mapSeries]
	published.Store(&series)
	for _, mib := range []int{4, 64} {
		b.Run(fmt.Sprintf("evict=%dMiB", mib), func(b *testing.B) {
			benchpair.Cold(b, mib<<20, func() {
				fast.observe(api.DialectCline, "read_file", api.StatusSucceeded, time.Millisecond, nil)
			}, func() {
				observeByMap(plain, &published, api.DialectCline, "read_file", api.StatusSucceeded, time.Millisecond)
			})
		})
	}
}
