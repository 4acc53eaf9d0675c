package server

import (
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/go-chi/chi/v5"
)

// routeNames keeps each matched route's pattern, as routePattern makes it,
// by the patterns of the routers the request went through: chi joins
// them and takes the wildcards out again on every call (two allocations
// for a route under /v1, for the metrics and the log line of every
// request). Routes are the router's, never the client's, so the table
// stays as small as the route list. The map is never changed once
// published; a new route publishes a copy. Speed only:
// BenchmarkRouteNames (./server/, docs/benchmarks.md).
type routeNames struct {
	table atomic.Pointer[map[routeKey]string]
	mu    sync.Mutex // serializes adding routes
}

// routeKey is the patterns a request matched, router by router; the
// slots after the last are empty.
type routeKey [maxRouteDepth]string

// maxRouteDepth is the deepest nesting of routers whose routes are kept:
// toolgate's go two deep (/v1/*, then the route); deeper ones are made
// by routePattern each time.
const maxRouteDepth = 3

// of is r's route pattern, as routePattern(r) returns it.
func (rn *routeNames) of(r *http.Request) string {
	rc := chi.RouteContext(r.Context())
	if rc == nil || len(rc.RoutePatterns) == 0 || len(rc.RoutePatterns) > maxRouteDepth {
		return routePattern(r)
	}
	var k routeKey
	copy(k[:], rc.RoutePatterns)
	if t := rn.table.Load(); t != nil {
		if p, ok := (*t)[k]; ok {
			return p
		}
	}
	p := routePattern(r)
	rn.mu.Lock()
	defer rn.mu.Unlock()
	old := rn.table.Load()
	next := make(map[routeKey]string, 1)
	if old != nil {
		if _, ok := (*old)[k]; ok {
			return p
		}
		next = make(map[routeKey]string, len(*old)+1)
		for ok, op := range *old {
			next[ok] = op
		}
	}
	next[k] = p
	rn.table.Store(&next)
	return p
}
