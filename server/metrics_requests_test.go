package server

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/toolgate/toolgate/internal/benchpair"
)

// TestRequestMethodLabelBounded: requests with made-up methods are
// counted under method="other", so no client can add series to /metrics
// at will; the usual methods keep their names, and each request is
// counted once in its own series.
func TestRequestMethodLabelBounded(t *testing.T) {
	ts := newTestServer(t)
	for _, m := range []string{"FROB", "XYZZY1", "XYZZY2", http.MethodGet} {
		ts.do(t, m, "/healthz", nil).Body.Close()
	}
	body := scrapeUntil(t, ts, 10*time.Second,
		`toolgate_http_requests_total\{code="405",method="other",route="unmatched"\} 3`,
		`toolgate_http_requests_total\{code="200",method="GET",route="/healthz"\} 1`)
	for _, made := range []string{"FROB", "XYZZY"} {
		if strings.Contains(body, made) {
			t.Errorf("/metrics names the method %s:\n%s", made, grepLines(body, "toolgate_http_requests_total"))
		}
	}
}

// BenchmarkRequestMetrics measures counting and timing a request in the
// series seriesFor keeps against looking its children up by label values
// each time.
func BenchmarkRequestMetrics(b *testing.B) {
	m := newHTTPMetrics(prometheus.NewRegistry(), "bench")
	benchpair.Run(b, func() {
		s := m.seriesFor("/v1/tool_use", http.MethodPost, http.StatusOK, true)
		s.requests.Inc()
		s.duration.Observe(0.0001)
	}, func() {
		m.requests.WithLabelValues("/v1/tool_use", http.MethodPost, "200").Inc()
		m.duration.WithLabelValues("/v1/tool_use").Observe(0.0001)
	})
}
