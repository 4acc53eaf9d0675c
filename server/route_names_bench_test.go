package server

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/toolgate/toolgate/internal/benchpair"
)

// BenchmarkRouteNames names the route of a POST /v1/tool_use as front
// does, from the kept patterns (routeNames.of), against chi's
// RoutePattern joining the routers' patterns again (routePattern): back
// to back ("warm", with the allocations of each) and each call timed
// alone after 4 or 64 MiB written (benchpair.Cold).
//
//	go test -run '^$' -bench RouteNames -benchtime 2000x -count 3 ./server/
func BenchmarkRouteNames(b *testing.B) {
	var req *http.Request
	r := chi.NewRouter()
	r.Route("/v1", func(r chi.Router) {
		r.Post("/tool_use", func(_ http.ResponseWriter, r *http.Request) { req = r })
	})
	r.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/v1/tool_use", nil))
	var rn routeNames
	var sink string
	fast, plain := func() { sink = rn.of(req) }, func() { sink = routePattern(req) }
	if fast(); sink != "/v1/tool_use" {
		b.Fatalf("route %q", sink)
	}
	b.Run("warm", func(b *testing.B) {
		b.ReportMetric(testing.AllocsPerRun(100, fast), "fast_allocs/op")
		b.ReportMetric(testing.AllocsPerRun(100, plain), "plain_allocs/op")
		benchpair.Run(b, fast, plain)
	})
	for _, mib := range []int{4, 64} {
		b.Run(fmt.Sprintf("evict=%dMiB", mib), func(b *testing.B) { benchpair.Cold(b, mib<<20, fast, plain) })
	}
}
