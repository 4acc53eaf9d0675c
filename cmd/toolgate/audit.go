package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"time"

	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/internal/store"
)

// audit runs "toolgate audit export": the audit log of a workspace's
// store, newest first, one JSON object a line (the records GET /v1/audit
// answers with) or CSV, as GET /v1/audit/export writes them. It opens the database read-only, so it works beside a
// running server.
func audit(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "export" {
		return fmt.Errorf("usage: toolgate audit export [--since 24h|2026-01-02|RFC 3339] [--until ...] [--session ID] [--tool NAME] [--status STATUS] [--format jsonl|csv]")
	}
	fs := flag.NewFlagSet("audit export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	since := fs.String("since", "", "only calls started at or after: a time (RFC 3339 or 2006-01-02) or an age (24h, 7d)")
	until := fs.String("until", "", "only calls started before: a time or an age")
	session := fs.String("session", "", "only this session's calls")
	tool := fs.String("tool", "", "only calls of this tool")
	status := fs.String("status", "", "only calls with this status (succeeded, failed, denied, interrupted, ...)")
	format := fs.String("format", "jsonl", "output format: jsonl (one JSON object a line) or csv")
	workspace := fs.String("workspace", ".", "the workspace whose store to read")
	config := fs.String("config", "", "the configuration file serve uses (for store.path)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if !slices.Contains(coordinator.AuditFormats, *format) {
		return fmt.Errorf("--format %q: want jsonl or csv", *format)
	}
	now := time.Now()
	q := store.Query{SessionID: *session, Tool: *tool, Status: *status, Limit: store.MaxLimit}
	var err error
	if q.Since, err = parseWhen(*since, now); err != nil {
		return fmt.Errorf("--since: %w", err)
	}
	if q.Until, err = parseWhen(*until, now); err != nil {
		return fmt.Errorf("--until: %w", err)
	}
	cfg, err := loadConfig(*config)
	if err != nil {
		return err
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintln(stderr, "toolgate: warning:", w)
	}
	if cfg.Store.Mode == storeMemory {
		return fmt.Errorf("store.mode is memory: there is no audit log on disk to export")
	}
	dir, err := filepath.Abs(*workspace)
	if err != nil {
		return err
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	path, err := statePath(cfg.Store, dir, getenv)
	if err != nil {
		return err
	}
	st, err := store.Open(ctx, path, store.Options{ReadOnly: true})
	if err != nil {
		return err
	}
	defer st.Close()
	return coordinator.WriteAudit(stdout, *format, q, st.Audit)
}

// parseWhen reads a time: RFC 3339, a date, or an age before now ("24h",
// "7d"). Empty is the zero time: no bound.
func parseWhen(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	if d, err := parseRetention(s); err == nil {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("%q: want RFC 3339 (2026-01-02T15:04:05Z), a date (2026-01-02) or an age (24h, 7d)", s)
}
