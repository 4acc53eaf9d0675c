package server

import (
	"bytes"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/toolgate/toolgate/api"
)

// TestHandlerErrorsBecomeProblems: a route handler returns its error and
// the one adapter (Server.handle) answers it: an *api.Error with its code's
// status and message, any other error as a bare 500 whose detail only the
// log sees; a handler that answered itself is left alone.
func TestHandlerErrorsBecomeProblems(t *testing.T) {
	var logs bytes.Buffer
	s := &Server{logger: slog.New(slog.NewJSONHandler(&logs, nil)), metrics: newHTTPMetrics(prometheus.NewRegistry(), "test")}
	s.cfg.defaults()
	r := chi.NewRouter()
	r.Use(s.middleware()...)
	r.Get("/conflict", s.handle(func(http.ResponseWriter, *http.Request) error {
		return errorf(api.CodeConflict, "the call is not running")
	}))
	r.Get("/broken", s.handle(func(http.ResponseWriter, *http.Request) error {
		return errors.New("disk on fire at /secret/path")
	}))
	r.Get("/fine", s.handle(func(w http.ResponseWriter, r *http.Request) error {
		s.encode(w, r, http.StatusAccepted, map[string]string{"ok": "yes"})
		return nil
	}))
	cases := []struct {
		path   string
		status int
		body   string
	}{
		{"/conflict", http.StatusConflict, `"code":"conflict","message":"the call is not running"`},
		{"/broken", http.StatusInternalServerError, `"code":"internal","message":"internal error"`},
		{"/fine", http.StatusAccepted, `"ok":"yes"`},
	}
	for _, tc := range cases {
		req := httptest.NewRequest("GET", tc.path, nil)
		req.Host = "127.0.0.1"
		rec := httptest.NewRecorder()
		r.ServeHTTP(rec, req)
		if rec.Code != tc.status || !strings.Contains(rec.Body.String(), tc.body) {
			t.Errorf("%s: %d %s, want %d with %s", tc.path, rec.Code, rec.Body, tc.status, tc.body)
		}
		if strings.Contains(rec.Body.String(), "secret") {
			t.Errorf("%s: the answer leaks the internal error: %s", tc.path, rec.Body)
		}
	}
	if !strings.Contains(logs.String(), "disk on fire at /secret/path") {
		t.Errorf("the log lacks the internal error:\n%s", logs.String())
	}
}
