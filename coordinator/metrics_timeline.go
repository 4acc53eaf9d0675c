package coordinator

import (
	"sort"
	"sync"
	"time"

	"github.com/toolgate/toolgate/api"
)

// timelineMinutes is how far back the per-minute figures reach.
const timelineMinutes = 60

// durationBuckets are the upper bounds, in seconds, of the tool latency
// histogram and of the timeline's per-minute buckets alike.
var durationBuckets = []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300}

// toolTimeline keeps each tool's calls, errors and latency minute by
// minute over the last hour: the figures the console charts over time.
// Prometheus holds only totals since the start; a chart over time would
// otherwise need a Prometheus server. A ring of timelineMinutes slots
// bounds it whatever the traffic, and tool names are the bounded metric
// labels, so a slot holds at most one entry per known tool.
type toolTimeline struct {
	mu    sync.Mutex
	slots [timelineMinutes]timelineSlot
}

// timelineSlot is one minute: unix minute and figures by tool.
type timelineSlot struct {
	minute int64 // 0: never used
	tools  map[string]*minuteFigures
}

// minuteFigures are one tool's calls finished in one minute.
type minuteFigures struct {
	calls, errors int
	sum, max      float64 // seconds
	buckets       []int   // per durationBuckets, then +Inf
}

// add counts a finished call at now.
func (t *toolTimeline) add(now time.Time, tool string, ok bool, d time.Duration) {
	minute := now.Unix() / 60
	t.mu.Lock()
	defer t.mu.Unlock()
	slot := &t.slots[minute%timelineMinutes]
	if slot.minute != minute {
		*slot = timelineSlot{minute: minute, tools: map[string]*minuteFigures{}}
	}
	f := slot.tools[tool]
	if f == nil {
		f = &minuteFigures{buckets: make([]int, len(durationBuckets)+1)}
		slot.tools[tool] = f
	}
	s := d.Seconds()
	f.calls++
	if !ok {
		f.errors++
	}
	f.sum += s
	f.max = max(f.max, s)
	f.buckets[sort.SearchFloat64s(durationBuckets, s)]++
}

// snapshot is the last hour's minutes up to now, oldest first.
func (t *toolTimeline) snapshot(now time.Time) api.ToolStatsResponse {
	last := now.Unix() / 60
	out := api.ToolStatsResponse{StepSeconds: 60, Minutes: []api.ToolsMinute{}}
	t.mu.Lock()
	defer t.mu.Unlock()
	for m := last - timelineMinutes + 1; m <= last; m++ {
		slot := &t.slots[((m%timelineMinutes)+timelineMinutes)%timelineMinutes]
		if slot.minute != m || len(slot.tools) == 0 {
			continue
		}
		tm := api.ToolsMinute{Start: time.Unix(m*60, 0).UTC(), Tools: make([]api.ToolMinute, 0, len(slot.tools))}
		for name, f := range slot.tools {
			tm.Tools = append(tm.Tools, api.ToolMinute{Tool: name, Calls: f.calls, Errors: f.errors,
				MeanSeconds: f.sum / float64(f.calls), P95Seconds: f.p95()})
		}
		sort.Slice(tm.Tools, func(i, j int) bool { return tm.Tools[i].Tool < tm.Tools[j].Tool })
		out.Minutes = append(out.Minutes, tm)
	}
	return out
}

// p95 is the upper bound of the bucket that holds the 95th percentile,
// never above the slowest call (the last bucket has no bound).
func (f *minuteFigures) p95() float64 {
	seen := 0
	for i, n := range f.buckets {
		seen += n
		if float64(seen) >= 0.95*float64(f.calls) {
			if i < len(durationBuckets) {
				return min(durationBuckets[i], f.max)
			}
			break
		}
	}
	return f.max
}

// ToolStats is each tool's calls, errors and latency minute by minute over
// the last hour (GET /v1/tool-stats).
func (c *Coordinator) ToolStats() api.ToolStatsResponse {
	return c.metrics.timeline.snapshot(time.Now())
}
