package main

import (
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolgate/toolgate/coordinator"
)

func TestLoadMCP(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	t.Run("none named", func(t *testing.T) {
		hub, err := loadMCP(&coordinator.Config{}, slog.New(slog.DiscardHandler))
		if hub != nil || err != nil {
			t.Errorf("loadMCP = %v, %v; want no hub and no error", hub, err)
		}
	})
	t.Run("settings protected and servers listed", func(t *testing.T) {
		p := write("mcp.json", `{"mcpServers": {"off": {"command": "x", "disabled": true}}}`)
		cfg := &coordinator.Config{MCPConfig: coordinator.MCPConfig{MCPSettings: p}}
		hub, err := loadMCP(cfg, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		defer hub.Close()
		if got := hub.Servers(); len(got) != 1 || got[0].Name != "off" {
			t.Errorf("servers = %+v, want off", got)
		}
		real, _ := filepath.EvalSymlinks(p)
		if n := len(cfg.ProtectedFiles); n == 0 || cfg.ProtectedFiles[n-1] != real {
			t.Errorf("protected files = %v, want %s among them", cfg.ProtectedFiles, real)
		}
	})
	t.Run("bad entries refused", func(t *testing.T) {
		for name, content := range map[string]string{
			"no-command.json":    `{"mcpServers": {"a": {"type": "stdio"}}}`,
			"no-url.json":        `{"mcpServers": {"a": {"type": "sse"}}}`,
			"bad-type.json":      `{"mcpServers": {"a": {"type": "carrier-pigeon", "url": "x"}}}`,
			"not-json.json":      `{`,
			"sandboxed-url.json": `{"mcpServers": {"a": {"url": "http://127.0.0.1:1/mcp", "sandbox": true}}}`,
		} {
			cfg := &coordinator.Config{MCPConfig: coordinator.MCPConfig{MCPSettings: write(name, content)}}
			if _, err := loadMCP(cfg, slog.New(slog.DiscardHandler)); err == nil {
				t.Errorf("%s: loadMCP succeeded, want an error", name)
			}
		}
	})
}
