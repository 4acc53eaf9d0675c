package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func TestLoadConfigMCPSettingsPath(t *testing.T) {
	dir := t.TempDir()
	abs := filepath.Join(t.TempDir(), "elsewhere.json")
	tests := []struct {
		name, settings, want string
	}{
		{name: "relative to the config file", settings: "mcp.json", want: filepath.Join(dir, "mcp.json")},
		{name: "relative with a directory", settings: "conf/mcp.json", want: filepath.Join(dir, "conf", "mcp.json")},
		{name: "absolute kept", settings: abs, want: abs},
		{name: "none", settings: "", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, "toolgate.json")
			body := `{"mcp": {"settings": ` + quote(tt.settings) + `}}`
			if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
				t.Fatal(err)
			}
			// The process runs somewhere else than the config file lives.
			t.Chdir(t.TempDir())
			cfg, err := loadConfig(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := cfg.Coordinator.MCPSettings; got != tt.want {
				t.Errorf("mcp_settings = %q, want %q", got, tt.want)
			}
		})
	}
	t.Run("config path itself relative", func(t *testing.T) {
		if err := os.MkdirAll(filepath.Join(dir, "etc"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "etc", "toolgate.json"), []byte(`{"mcp": {"settings": "mcp.json"}}`), 0o600); err != nil {
			t.Fatal(err)
		}
		t.Chdir(dir)
		cfg, err := loadConfig(filepath.Join("etc", "toolgate.json"))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := cfg.Coordinator.MCPSettings, filepath.Join(dir, "etc", "mcp.json"); got != want {
			t.Errorf("mcp_settings = %q, want %q", got, want)
		}
	})
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestLoadConfigWebFetch: tools.web_fetch is read at start-up, and an
// allow_addresses entry that is not ip:port stops it there.
func TestLoadConfigWebFetch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "toolgate.json")
	write := func(body string) {
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"tools": {"web_fetch": {"allow_private": true, "allow_addresses": ["127.0.0.1:3000", "[::1]:8080"], "max_bytes": 1024, "timeout": "2s"}}}`)
	cfg, err := loadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	w := cfg.Coordinator.WebFetch
	if size, timeout := w.Limits(); !w.AllowPrivate || len(w.AllowAddresses) != 2 || w.AllowAddresses[1].Port() != 8080 || size != 1024 || timeout.String() != "2s" {
		t.Errorf("web_fetch = %+v, want the file's values", w)
	}
	write(`{"tools": {"web_fetch": {"allow_addresses": ["localhost:3000"]}}}`)
	if _, err := loadConfig(path); err == nil {
		t.Error("allow_addresses with a host name accepted, want an error at start-up")
	}
}

// TestLoadConfigBypassPermissions: policy.allow_bypass_permissions, off by
// default, is what lets sessions take Claude Code's bypassPermissions mode.
func TestLoadConfigBypassPermissions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "toolgate.json")
	if err := os.WriteFile(path, []byte(`{"policy": {"allow_bypass_permissions": true}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := loadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.Coordinator.AllowBypassPermissions {
		t.Error("allow_bypass_permissions not read")
	}
	if def, _ := loadConfig(""); def.Coordinator.AllowBypassPermissions {
		t.Error("bypassPermissions allowed without the key")
	}
}
