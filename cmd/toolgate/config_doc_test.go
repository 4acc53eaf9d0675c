package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// configValues maps every key of the config file, as a dotted path
// ("tools.commands.max_timeout"), to the JSON of the value cfg holds for
// it. The keys are walked from configView, the layout the file is
// decoded through, so a key added there is listed here; the older
// layout's names (legacyKeys) are left out.
func configValues(cfg *fileConfig) map[string]string {
	legacy := map[string]bool{}
	for _, m := range legacyKeys {
		legacy[m.from] = true
	}
	out := map[string]string{}
	var walk func(path string, v reflect.Value)
	walk = func(path string, v reflect.Value) {
		for name, f := range jsonFields(v) {
			at := joinPath(path, name)
			switch {
			case legacy[at]:
			case isConfigLeaf(f):
				out[at] = leafJSON(f)
			default:
				walk(at, follow(f))
			}
		}
	}
	walk("", follow(reflect.ValueOf(newConfigView(cfg))))
	return out
}

// isConfigLeaf: a key whose value is read whole (a scalar, a list, a
// map, or a type that reads its own JSON such as a duration), not an
// object of further keys.
func isConfigLeaf(f reflect.Value) bool {
	unmarshaler := reflect.TypeFor[json.Unmarshaler]()
	if f.Kind() != reflect.Pointer && f.Type().Implements(unmarshaler) {
		return true
	}
	f = follow(f)
	return f.Kind() != reflect.Struct || f.Addr().Type().Implements(unmarshaler)
}

// leafJSON is the JSON of a leaf's value; a durationSeconds view is the
// number of seconds it points at.
func leafJSON(f reflect.Value) string {
	var v any = follow(f).Interface()
	if d, ok := v.(durationSeconds); ok {
		v = *d.seconds
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "unmarshalable: " + err.Error()
	}
	return string(b)
}

// TestConfigurationPageListsEveryKey holds docs/configuration.md's key
// table to the config file's layout: every key is listed once, no row
// names a key that does not exist, a default written as JSON (one
// backticked value) is the built-in default, and a key whose built-in
// default is not zero shows it so.
func TestConfigurationPageListsEveryKey(t *testing.T) {
	page, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := configTableRows(t, string(page))
	defaults, err := loadConfig("")
	if err != nil {
		t.Fatal(err)
	}
	want := configValues(&defaults)
	for key := range want {
		if _, ok := rows[key]; !ok {
			t.Errorf("docs/configuration.md does not list %s", key)
		}
	}
	for _, m := range legacyKeys {
		if !strings.Contains(string(page), "`"+m.from+"`") {
			t.Errorf("docs/configuration.md does not name the older key %s", m.from)
		}
	}
	documented := map[string]any{}
	for key, cell := range rows {
		value, ok := want[key]
		switch {
		case !ok:
			t.Errorf("docs/configuration.md lists %s, which is not a config key", key)
		case isJSONCell(cell):
			var v any
			if err := json.Unmarshal([]byte(strings.Trim(cell, "`")), &v); err != nil {
				t.Errorf("%s: default %s is not JSON: %v", key, cell, err)
				continue
			}
			setDotted(documented, key, v)
		case !isZeroJSON(value):
			t.Errorf("%s: the page says %q, but the built-in default is %s: write it as JSON in backticks", key, cell, value)
		}
	}
	// The documented defaults, written as a config file, must load to
	// the built-in ones.
	file, err := json.Marshal(documented)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "defaults.json")
	if err := os.WriteFile(path, file, 0o600); err != nil {
		t.Fatal(err)
	}
	loaded, err := loadConfig(path)
	if err != nil {
		t.Fatalf("the page's defaults do not load as a config: %v", err)
	}
	got := configValues(&loaded)
	for key, cell := range rows {
		if isJSONCell(cell) && got[key] != want[key] {
			t.Errorf("%s: the page's default %s reads as %s, the built-in default is %s", key, cell, got[key], want[key])
		}
	}
}

// configTableRows reads the page's "| `key` | default | ... |" rows; a
// key listed twice is an error.
func configTableRows(t *testing.T, page string) map[string]string {
	t.Helper()
	rows := map[string]string{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-zA-Z_.]+)` \\| ([^|]*?) \\|").FindAllStringSubmatch(page, -1) {
		if _, dup := rows[m[1]]; dup {
			t.Errorf("docs/configuration.md lists %s twice", m[1])
		}
		rows[m[1]] = m[2]
	}
	if len(rows) == 0 {
		t.Fatal("docs/configuration.md has no key table")
	}
	return rows
}

// isJSONCell: a default written as one backticked JSON value.
func isJSONCell(cell string) bool {
	return len(cell) > 2 && strings.HasPrefix(cell, "`") && strings.HasSuffix(cell, "`") && strings.Count(cell, "`") == 2
}

// isZeroJSON: the JSON of a value left at Go's zero.
func isZeroJSON(v string) bool {
	switch v {
	case "null", "false", "0", `""`, `"0s"`, "[]", "{}":
		return true
	}
	return false
}

// setDotted sets a dotted key in nested objects.
func setDotted(root map[string]any, key string, v any) {
	parts := strings.Split(key, ".")
	for _, p := range parts[:len(parts)-1] {
		next, ok := root[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			root[p] = next
		}
		root = next
	}
	root[parts[len(parts)-1]] = v
}
