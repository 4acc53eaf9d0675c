package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"

	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/server"
)

// fileConfig is the --config file: {"server": {...}, "policy": {...}}, the
// HTTP side's settings and the managed policy.
type fileConfig struct {
	Server      server.Config      `json:"server"`
	Coordinator coordinator.Config `json:"policy"`
}

// loadConfig reads the configuration file; no file means the defaults.
func loadConfig(path string) (fileConfig, error) {
	cfg := fileConfig{Coordinator: coordinator.DefaultConfig()}
	if path == "" {
		return cfg, nil
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
	return cfg, nil
}
