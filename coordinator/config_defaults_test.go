package coordinator

import (
	"reflect"
	"testing"
)

// TestDefaultConfigSetsEveryLimit: every number and duration of Config has
// its default in DefaultConfig (config_defaults.go), so no other file
// needs to know what a zero means. The sandbox's limits belong to
// internal/sandbox, which fills them itself.
func TestDefaultConfigSetsEveryLimit(t *testing.T) {
	c := DefaultConfig()
	var walk func(path string, v reflect.Value)
	walk = func(path string, v reflect.Value) {
		for i := range v.NumField() {
			sf, f := v.Type().Field(i), v.Field(i)
			name := path + sf.Name
			switch {
			case name == "Sandbox":
			case f.Kind() == reflect.Struct:
				walk(name+".", f)
			case f.CanInt() && f.Int() == 0:
				t.Errorf("DefaultConfig leaves %s at 0: give it a default in config_defaults.go", name)
			}
		}
	}
	walk("", reflect.ValueOf(c))

	// New fills what a config leaves unset, and keeps what it sets.
	cfg := Config{MaxSessions: 3, AgentConfig: AgentConfig{LoopGuardRepeats: -1}, SessionIdleSeconds: -1}
	cfg.fillDefaults()
	if cfg.MaxSessions != 3 || cfg.LoopGuardRepeats != -1 || cfg.SessionIdleSeconds != -1 || cfg.EventLogSize != defaultEventLogSize ||
		cfg.Commands.MaxTimeoutSeconds != 3600 || cfg.Browser.ViewportWidth != DefaultViewportWidth {
		t.Errorf("fillDefaults gave %+v", cfg)
	}
}
