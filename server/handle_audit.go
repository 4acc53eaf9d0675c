package server

import (
	"net/http"
	"strconv"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/internal/store"
)

// handleAudit pages through every call the store recorded, newest first:
// GET /v1/audit?since=&until=&session=&tool=&status=&limit=&cursor=.
func (s *Server) handleAudit(w http.ResponseWriter, r *http.Request) error {
	q, err := auditQuery(r)
	if err != nil {
		return err
	}
	resp, err := s.coord.Audit(q)
	if err != nil {
		return err
	}
	s.encode(w, r, http.StatusOK, resp)
	return nil
}

// auditQuery reads the filters; every malformed one is named.
func auditQuery(r *http.Request) (store.Query, error) {
	v := r.URL.Query()
	q := store.Query{SessionID: v.Get("session"), Tool: v.Get("tool"), Status: v.Get("status")}
	fields := map[string]string{}
	when := func(name string) time.Time {
		s := v.Get(name)
		if s == "" {
			return time.Time{}
		}
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			fields[name] = "must be an RFC 3339 time, such as 2026-01-02T15:04:05Z"
		}
		return t
	}
	q.Since, q.Until = when("since"), when("until")
	if s := v.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > store.MaxLimit {
			fields["limit"] = "must be a number from 1 to " + strconv.Itoa(store.MaxLimit)
		}
		q.Limit = n
	}
	if s := v.Get("cursor"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 1 {
			fields["cursor"] = "must be the next_cursor of a previous page"
		}
		q.Before = n
	}
	if len(fields) > 0 {
		return q, &api.Error{Code: api.CodeValidation, Message: "invalid audit query", Fields: fields}
	}
	return q, nil
}

// handleAuditExport downloads every call the filters match, newest first,
// as JSON lines (format=jsonl, the default) or CSV (format=csv):
// GET /v1/audit/export?format=&since=&until=&session=&tool=&status=.
// toolgate audit export writes the same from the command line.
func (s *Server) handleAuditExport(w http.ResponseWriter, r *http.Request) error {
	q, err := auditQuery(r)
	if err != nil {
		return err
	}
	format := r.URL.Query().Get("format")
	if format == "" {
		format = "jsonl"
	}
	contentType, ok := auditExportTypes[format]
	if !ok {
		return &api.Error{Code: api.CodeValidation, Message: "invalid audit export",
			Fields: map[string]string{"format": "must be jsonl or csv"}}
	}
	if r.URL.Query().Has("limit") || r.URL.Query().Has("cursor") {
		return &api.Error{Code: api.CodeValidation, Message: "invalid audit export",
			Fields: map[string]string{"limit": "an export has every matching call; page with GET /v1/audit"}}
	}
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Disposition", `attachment; filename="toolgate-audit.`+format+`"`)
	out := &startedWriter{w: w}
	if err := s.coord.ExportAudit(out, format, q); err != nil {
		if !out.started {
			h.Del("Content-Disposition")
			return err
		}
		// Part of the export was sent: cut the response short, so the
		// client sees a broken download rather than a complete-looking one.
		logFrom(r, s.logger).Error("audit export cut short", "err", err)
		panic(http.ErrAbortHandler)
	}
	if !out.started {
		w.WriteHeader(http.StatusOK) // nothing matched: an empty download
	}
	return nil
}

// auditExportTypes are the export formats and their content types.
var auditExportTypes = map[string]string{"jsonl": "application/x-ndjson", "csv": "text/csv; charset=utf-8"}

// startedWriter notes whether anything was written.
type startedWriter struct {
	w       http.ResponseWriter
	started bool
}

func (s *startedWriter) Write(p []byte) (int, error) {
	s.started = true
	return s.w.Write(p)
}
