package server

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/go-chi/chi/v5"
)

// routeNames.of names every route as routePattern does, on the first
// request of a route and on the ones after, at every depth of nested
// routers (beyond maxRouteDepth made each time), for unmatched paths,
// and without chi's context.
func TestRouteNamesAsRoutePattern(t *testing.T) {
	var rn routeNames
	check := func(w http.ResponseWriter, r *http.Request) {
		want := routePattern(r)
		for range 2 {
			if got := rn.of(r); got != want {
				t.Errorf("%s: route %q, routePattern %q", r.URL.Path, got, want)
			}
		}
	}
	r := chi.NewRouter()
	r.NotFound(check)
	r.Get("/", check)
	r.Get("/healthz", check)
	r.Get("/console/{file}", check)
	r.Get("/v1/sessions/{sid}/ports/{port}/*", check)
	r.Route("/v1", func(r chi.Router) {
		r.Get("/tools", check)
		r.Get("/sessions/{sid}/calls/{tool_use_id}", check)
		r.Route("/deep", func(r chi.Router) {
			r.Get("/x/{id}", check)
			r.Route("/deeper", func(r chi.Router) {
				r.Get("/y", check)
				r.Get("/*", check)
			})
		})
	})
	paths := []string{"/", "/healthz", "/console/app.js", "/v1/sessions/s1/ports/3000/a/b", "/v1/tools",
		"/v1/sessions/s1/calls/toolu_1", "/v1/sessions/s2/calls/toolu_2", "/v1/deep/x/1", "/v1/deep/deeper/y",
		"/v1/deep/deeper/z/w", "/nowhere", "/v1/nowhere", "/v1/deep/nowhere"}
	for range 2 {
		for _, p := range paths {
			r.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, p, nil))
		}
	}
	check(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/outside", nil)) // no router: "unmatched"
	if got := rn.of(httptest.NewRequest(http.MethodGet, "/outside", nil)); got != "unmatched" {
		t.Errorf("outside a router: %q, want unmatched", got)
	}
}
