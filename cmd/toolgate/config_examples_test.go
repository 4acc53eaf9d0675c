package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/mcphub"
)

// configSections are the top-level keys of the config file.
var configSections = func() map[string]bool {
	out := map[string]bool{}
	var cfg fileConfig
	for k := range jsonFields(follow(reflectValue(newConfigView(&cfg)))) {
		out[k] = true
	}
	return out
}()

// TestConfigExamplesLoad: every config the repository shows (the JSON
// blocks and inline objects of README.md and docs/, deploy/) loads in the
// current layout, without a deprecation warning.
func TestConfigExamplesLoad(t *testing.T) {
	var examples []string
	for _, doc := range docFiles(t) {
		for _, m := range regexp.MustCompile("(?s)```json\n(.*?)```").FindAllSubmatch(doc.text, -1) {
			examples = append(examples, string(m[1]))
		}
		for _, m := range regexp.MustCompile("`(\\{\"[^`]*\\})`").FindAllSubmatch(doc.text, -1) {
			examples = append(examples, string(m[1]))
		}
	}
	deploy, err := os.ReadFile("../../deploy/toolgate.json")
	if err != nil {
		t.Fatal(err)
	}
	examples = append(examples, string(deploy))
	configMap, err := os.ReadFile("../../deploy/kubernetes/configmap.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, embedded, ok := strings.Cut(string(configMap), "toolgate.json: |\n")
	if !ok {
		t.Fatal("configmap.yaml holds no toolgate.json")
	}
	examples = append(examples, embedded)

	loaded := 0
	for _, ex := range examples {
		var obj map[string]json.RawMessage
		if json.Unmarshal([]byte(ex), &obj) != nil || len(obj) == 0 {
			continue // not a config file (a request body, a settings file)
		}
		isConfig := true
		for k := range obj {
			isConfig = isConfig && configSections[k]
		}
		if !isConfig {
			continue
		}
		path := filepath.Join(t.TempDir(), "toolgate.json")
		if err := os.WriteFile(path, []byte(ex), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, err := loadConfig(path)
		if err != nil {
			t.Errorf("example does not load: %v\n%s", err, ex)
			continue
		}
		if len(cfg.Warnings) > 0 {
			t.Errorf("example uses deprecated keys %q:\n%s", cfg.Warnings, ex)
		}
		loaded++
	}
	// The sandbox, configuration and MCP examples of docs/, deploy/ and the
	// Kubernetes ConfigMap at least.
	if loaded < 5 {
		t.Errorf("only %d config examples found, want at least 5", loaded)
	}
}

func reflectValue(v any) reflect.Value { return reflect.ValueOf(v) }

// TestMCPSettingsExamplesLoad: every MCP settings file the docs show
// ({"mcpServers": ...}) is one toolgate accepts, with no unknown key.
func TestMCPSettingsExamplesLoad(t *testing.T) {
	found := 0
	for _, doc := range docFiles(t) {
		for _, m := range regexp.MustCompile("(?s)```json\n(.*?)```").FindAllSubmatch(doc.text, -1) {
			if !bytes.Contains(m[1], []byte(`"mcpServers"`)) {
				continue
			}
			found++
			dec := json.NewDecoder(bytes.NewReader(m[1]))
			dec.DisallowUnknownFields()
			var s mcphub.Settings
			if err := dec.Decode(&s); err != nil {
				t.Errorf("%s: MCP settings example does not decode: %v\n%s", doc.name, err, m[1])
				continue
			}
			path := filepath.Join(t.TempDir(), "mcp.json")
			if err := os.WriteFile(path, m[1], 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := mcphub.LoadSettings(path); err != nil {
				t.Errorf("%s: MCP settings example refused: %v", doc.name, err)
			}
		}
	}
	if found == 0 {
		t.Error("no MCP settings example found in README.md or docs/")
	}
}
