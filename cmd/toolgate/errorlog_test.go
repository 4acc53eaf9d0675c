package main

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestHTTPServerErrorLogIsStructured makes net/http log one of its own
// errors (a handler writing its header twice) through a served request and
// checks it arrives in the structured log at level error.
func TestHTTPServerErrorLogIsStructured(t *testing.T) {
	var logs bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&logs, nil))
	srv := newHTTPServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		w.WriteHeader(http.StatusTeapot) // net/http reports the superfluous call
	}), logger)
	ts := httptest.NewUnstartedServer(srv.Handler)
	ts.Config = srv
	ts.Start()
	resp, err := ts.Client().Get(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	ts.Close() // waits for the handler, so the line is written

	var line struct {
		Level string `json:"level"`
		Msg   string `json:"msg"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(logs.Bytes()), &line); err != nil {
		t.Fatalf("log %q is not one JSON line: %v", logs.String(), err)
	}
	if line.Level != "ERROR" || !bytes.Contains([]byte(line.Msg), []byte("superfluous")) {
		t.Errorf("log line = %+v, want level ERROR about the superfluous WriteHeader", line)
	}
}
