package main

import (
	"log/slog"
	"path/filepath"

	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/internal/mcphub"
)

// loadMCP loads the MCP settings the config names into a hub, nil when
// none are named; Start connects it once the coordinator has given it its
// sandbox. The settings file joins the protected files: a write to it
// would change what runs.
func loadMCP(cfg *coordinator.Config, logger *slog.Logger) (*mcphub.Hub, error) {
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
	return mcphub.New(settings, mcphub.Options{Logger: logger, Version: version}), nil
}
