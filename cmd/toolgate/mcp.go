package main

import (
	"context"
	"log/slog"
	"path/filepath"

	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/coordinator/mcphub"
)

// startMCP loads the MCP settings the config names and connects to the
// servers in the background; nil when none are named. The settings file
// joins the protected files: a write to it would change what runs.
func startMCP(ctx context.Context, cfg *coordinator.Config, logger *slog.Logger) (*mcphub.Hub, error) {
	if cfg.MCPSettings == "" {
		return nil, nil
	}
	settings, err := mcphub.LoadSettings(cfg.MCPSettings)
	if err != nil {
		return nil, err
	}
	if abs, err := filepath.Abs(cfg.MCPSettings); err == nil {
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
		cfg.ProtectedFiles = append(cfg.ProtectedFiles, abs)
	}
	hub := mcphub.New(settings, mcphub.Options{Logger: logger, Version: version})
	hub.Start(ctx)
	return hub, nil
}
