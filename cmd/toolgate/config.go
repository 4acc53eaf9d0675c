package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/internal/telemetry"
	"github.com/toolgate/toolgate/server"
)

// fileConfig is the --config file: {"server": {...}, "policy": {...}}, the
// HTTP side's settings and the managed policy.
type fileConfig struct {
	Server      server.Config      `json:"server"`
	Coordinator coordinator.Config `json:"policy"`
	Store       storeConfig        `json:"store"`
	// Telemetry turns OTLP trace export on (see internal/telemetry).
	Telemetry telemetry.Config `json:"telemetry"`
}

// loadConfig reads the configuration file; no file means the defaults.
func loadConfig(path string) (fileConfig, error) {
	cfg := fileConfig{Coordinator: coordinator.DefaultConfig()}
	if path == "" {
		return cfg, cfg.Store.check()
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return cfg, fmt.Errorf("read config: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cfg); err != nil {
		return cfg, fmt.Errorf("config %s: %w", path, err)
	}
	if err := server.CheckHosts(cfg.Server.AllowedHosts); err != nil {
		return cfg, fmt.Errorf("config %s: %w", path, err)
	}
	if err := server.CheckOrigins(cfg.Server.AllowedOrigins); err != nil {
		return cfg, fmt.Errorf("config %s: %w", path, err)
	}
	if err := coordinator.ValidatePermissions(cfg.Coordinator.Permissions); err != nil {
		return cfg, fmt.Errorf("config %s: %w %v", path, err, err.(*api.Error).Fields)
	}
	if err := cfg.Store.check(); err != nil {
		return cfg, fmt.Errorf("config %s: %w", path, err)
	}
	resolveRelative(&cfg, path)
	// Writes to the config file itself must never pass silently.
	if abs, err := filepath.Abs(path); err == nil {
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
		cfg.Coordinator.ProtectedFiles = append(cfg.Coordinator.ProtectedFiles, abs)
	}
	return cfg, nil
}

// resolveRelative makes the paths the config names relative to the
// config file's directory, as a reader of the file expects, rather than
// to wherever the process happened to start.
func resolveRelative(cfg *fileConfig, path string) {
	dir := filepath.Dir(path)
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if p := cfg.Coordinator.MCPSettings; p != "" && !filepath.IsAbs(p) {
		cfg.Coordinator.MCPSettings = filepath.Join(dir, p)
	}
	if p := cfg.Store.Path; p != "" && !filepath.IsAbs(p) {
		cfg.Store.Path = filepath.Join(dir, p)
	}
}
