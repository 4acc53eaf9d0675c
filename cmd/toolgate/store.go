package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/toolgate/toolgate/internal/store"
)

// storeConfig is the config file's "store" section.
type storeConfig struct {
	// Mode is "sqlite" (the default: an embedded database that survives
	// restarts) or "memory" (nothing survives the process).
	Mode string `json:"mode"`
	// Path is the database file; empty means
	// $XDG_STATE_HOME/toolgate/<hash of the workspace path>/state.db.
	Path string `json:"path"`
	// Retention is how long finished calls stay in the audit log: a Go
	// duration ("720h") or a number of days ("30d"). Default 30 days.
	Retention string `json:"retention"`
}

// Store modes.
const (
	storeSQLite = "sqlite"
	storeMemory = "memory"
)

// defaultRetention is how long calls stay in the audit log by default.
const defaultRetention = 30 * 24 * time.Hour

// check validates the section and fills its defaults. The error lists
// every problem, joined by newlines.
func (c *storeConfig) check() error {
	var errs []error
	switch c.Mode {
	case "":
		c.Mode = storeSQLite
	case storeSQLite, storeMemory:
	default:
		errs = append(errs, fmt.Errorf("store.mode %q: want %q or %q", c.Mode, storeSQLite, storeMemory))
	}
	if c.Retention != "" {
		if _, err := parseRetention(c.Retention); err != nil {
			errs = append(errs, fmt.Errorf("store.retention: %w", err))
		}
	}
	return errors.Join(errs...)
}

// retention is the configured retention, or the default.
func (c storeConfig) retention() time.Duration {
	if d, err := parseRetention(c.Retention); err == nil && c.Retention != "" {
		return d
	}
	return defaultRetention
}

// parseRetention reads a Go duration, or whole days written "30d".
func parseRetention(s string) (time.Duration, error) {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n <= 0 {
			return 0, fmt.Errorf("%q: want a positive number of days (30d) or a Go duration (720h)", s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%q: want a positive number of days (30d) or a Go duration (720h)", s)
	}
	return d, nil
}

// statePath is where the database lives: store.path, or a directory per
// workspace under $XDG_STATE_HOME (default ~/.local/state), so two
// workspaces never share their sessions.
func statePath(c storeConfig, workspace string, getenv func(string) string) (string, error) {
	if c.Path != "" {
		return filepath.Abs(c.Path)
	}
	base := getenv("XDG_STATE_HOME")
	if base == "" || !filepath.IsAbs(base) {
		home := getenv("HOME")
		if home == "" {
			return "", fmt.Errorf("neither XDG_STATE_HOME nor HOME is set: set store.path, or store.mode \"memory\"")
		}
		base = filepath.Join(home, ".local", "state")
	}
	sum := sha256.Sum256([]byte(workspace))
	return filepath.Join(base, "toolgate", hex.EncodeToString(sum[:8]), "state.db"), nil
}

// stateDirs are the directories toolgate keeps its state databases in by
// default, one database for each workspace: the sandbox masks them whole,
// so that a command reads no workspace's sessions and audit log, another
// workspace's included (a store.path elsewhere is masked by its path).
func stateDirs(getenv func(string) string) []string {
	var out []string
	if base := getenv("XDG_STATE_HOME"); base != "" && filepath.IsAbs(base) {
		out = append(out, filepath.Join(base, "toolgate"))
	}
	if home := getenv("HOME"); home != "" {
		out = append(out, filepath.Join(home, ".local", "state", "toolgate"))
	}
	return out
}

// databaseFiles are the state database's files, to protect from writes
// and mask from commands, or none when the database lies, its directory's
// symbolic links resolved, in one of dirs, the state directories the
// sandbox masks whole: each path masked is resolved again before every
// sandboxed command, and the four of a database in the default place
// were a tenth of a millisecond of each command's CPU (perf profiles of
// toolgate serve running `true`, docs/benchmarks.md).
func databaseFiles(path string, dirs []string) []string {
	if real, err := filepath.EvalSymlinks(filepath.Dir(path)); err == nil {
		for _, d := range dirs {
			if rd, err := filepath.EvalSymlinks(d); err == nil && (real == rd || strings.HasPrefix(real, rd+string(filepath.Separator))) {
				return nil
			}
		}
	}
	return []string{path, path + "-wal", path + "-shm", path + ".lock"}
}

// openStore opens the configured store. The returned stop ends its
// pruning and closes it.
func openStore(ctx context.Context, c storeConfig, workspace string, getenv func(string) string, logger *slog.Logger) (store.Store, func(), error) {
	if c.Mode == storeMemory {
		st := store.NewMemory(0)
		stop := pruneEvery(st, c.retention(), time.Hour, logger)
		return st, func() { stop(); st.Close() }, nil
	}
	path, err := statePath(c, workspace, getenv)
	if err != nil {
		return nil, nil, err
	}
	st, err := store.Open(ctx, path, store.Options{OnError: func(err error) { logger.Error("store write failed", "err", err) }})
	if err != nil {
		return nil, nil, err
	}
	logger.Info("store open", "path", path)
	stop := pruneEvery(st, c.retention(), time.Hour, logger)
	return st, func() {
		stop()
		if err := st.Close(); err != nil {
			logger.Error("store close failed", "err", err)
		}
	}, nil
}

// pruneEvery deletes calls older than the retention now and then every
// interval, until stop is called.
func pruneEvery(st store.Store, retention, interval time.Duration, logger *slog.Logger) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	prune := func() {
		n, err := st.Prune(time.Now().Add(-retention))
		if err != nil {
			logger.Error("store prune failed", "err", err)
		} else if n > 0 {
			logger.Info("store pruned", "calls", n)
		}
	}
	go func() {
		defer close(finished)
		prune()
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				prune()
			}
		}
	}()
	return func() { close(done); <-finished }
}
