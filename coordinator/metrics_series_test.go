package coordinator

import (
	"bytes"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
	"github.com/toolgate/toolgate/api"
)

// Calls counted through the kept series (a counter per status beside the
// histogram) give the same metrics as counting them by label values,
// for every status, a tool of its own and one folded into "other".
func TestToolSeriesAsLabelValues(t *testing.T) {
	if len(api.AllStatuses) > maxStatuses {
		t.Errorf("%d statuses, toolSeries keeps %d: raise maxStatuses", len(api.AllStatuses), maxStatuses)
	}
	text := func(kept bool) string {
		reg := prometheus.NewRegistry()
		m := NewMetrics(reg)
		tools := map[api.Dialect][]string{api.DialectCline: {"read_file", "write_to_file"}}
		if kept {
			m.start(tools)
		} else { // the same series at zero, made by label values
			for _, name := range append(tools[api.DialectCline], otherTool) {
				m.duration.WithLabelValues(name, string(api.DialectCline))
				for _, st := range api.AllStatuses {
					m.calls.WithLabelValues(name, string(api.DialectCline), string(st))
				}
			}
		}
		count := func(tool, seriesTool string, st api.CallStatus, d time.Duration) {
			if kept {
				m.observe(api.DialectCline, tool, st, d, nil)
				return
			}
			m.calls.WithLabelValues(seriesTool, string(api.DialectCline), string(st)).Inc()
			m.duration.WithLabelValues(seriesTool, string(api.DialectCline)).Observe(d.Seconds())
		}
		for i, st := range api.AllStatuses {
			for range i + 1 {
				count("read_file", "read_file", st, time.Duration(i+1)*time.Millisecond)
			}
			count("unlisted_tool", otherTool, st, time.Second)
		}
		count("write_to_file", "write_to_file", api.CallStatus("not_a_status"), time.Millisecond)
		families, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		for _, f := range families {
			if _, err := expfmt.MetricFamilyToText(&buf, f); err != nil {
				t.Fatal(err)
			}
		}
		return buf.String()
	}
	if kept, labels := text(true), text(false); kept != labels {
		t.Errorf("metrics counted through the kept series:\n%s\nby label values:\n%s", kept, labels)
	}
}
