package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/internal/telemetry"
	"github.com/toolgate/toolgate/server"
)

// fileConfig is what the --config file configures. The file has one
// section per concern (see configView for the keys):
//
//	{"server": {...}, "policy": {...}, "hooks": {...}, "subagents": {...},
//	 "mcp": {...}, "sandbox": {...}, "tools": {...}, "sessions": {...},
//	 "messages": {...}, "store": {...}, "telemetry": {...}}
//
// Files written for the older layout, where "policy" held everything the
// coordinator reads and durations were "*_seconds" numbers, still load:
// see legacyKeys.
type fileConfig struct {
	Server      server.Config
	Coordinator coordinator.Config
	Store       storeConfig
	// Telemetry turns OTLP trace export on (see internal/telemetry).
	Telemetry telemetry.Config
	// Warnings name the deprecated keys the file used; the caller logs
	// them once it has a logger.
	Warnings []string
}

// defaultFileConfig is the configuration before the file is read: every
// default of the file's keys starts here or in the constructors it calls.
func defaultFileConfig() fileConfig {
	return fileConfig{Coordinator: coordinator.DefaultConfig()}
}

// loadConfig reads, migrates, decodes and checks the configuration file;
// no file means the defaults. A bad file is refused with every problem it
// has, one a line, not just the first.
func loadConfig(path string) (fileConfig, error) {
	cfg := defaultFileConfig()
	if path == "" {
		return cfg, joinProblems("", checkConfig(&cfg, nil))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return cfg, fmt.Errorf("read config: %w", err)
	}
	warnings, problems := decodeConfig(data, &cfg)
	cfg.Warnings = warnings
	problems = checkConfig(&cfg, problems)
	if err := joinProblems(path, problems); err != nil {
		return cfg, err
	}
	resolveRelative(&cfg, path)
	if err := loadTokensFile(&cfg, path); err != nil {
		return cfg, err
	}
	// Writes to the config file itself must never pass silently.
	if abs, err := filepath.Abs(path); err == nil {
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
		cfg.Coordinator.ProtectedFiles = append(cfg.Coordinator.ProtectedFiles, abs)
	}
	return cfg, nil
}

// decodeConfig parses the file, renames its deprecated keys and decodes
// every key into cfg, collecting a problem for each key it cannot use.
func decodeConfig(data []byte, cfg *fileConfig) (warnings, problems []string) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var root any
	if err := dec.Decode(&root); err != nil {
		return nil, []string{"not valid JSON: " + err.Error()}
	}
	if dec.More() {
		return nil, []string{"not valid JSON: more than one value"}
	}
	if root == nil {
		return nil, nil
	}
	obj, ok := root.(map[string]any)
	if !ok {
		return nil, []string{"the file must hold a JSON object"}
	}
	warnings, problems = migrateLegacy(obj)
	decodeObject("", obj, newConfigView(cfg), &problems)
	return warnings, problems
}

// joinProblems makes one error listing every problem of the file.
func joinProblems(path string, problems []string) error {
	if len(problems) == 0 {
		return nil
	}
	where := "config"
	if path != "" {
		where = "config " + path
	}
	if len(problems) == 1 {
		return fmt.Errorf("%s: %s", where, problems[0])
	}
	return errors.New(where + ": " + fmt.Sprint(len(problems)) + " problems:\n  " + strings.Join(problems, "\n  "))
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
