package coordinator

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"reflect"
	"strings"
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

// TestDefaultsNamedInOnePlace: no file of the coordinator but
// config_defaults.go names a default of config_defaults.go. A default
// applied elsewhere (an accessor falling back to a constant) would be a
// second place that decides what an unset setting means.
func TestDefaultsNamedInOnePlace(t *testing.T) {
	fset := token.NewFileSet()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]*ast.File{}
	for _, e := range entries {
		if name := e.Name(); strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			f, err := parser.ParseFile(fset, name, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			files[name] = f
		}
	}
	defaults := map[string]bool{}
	for _, d := range files["config_defaults.go"].Decls {
		if g, ok := d.(*ast.GenDecl); ok && (g.Tok == token.CONST || g.Tok == token.VAR) {
			for _, spec := range g.Specs {
				for _, n := range spec.(*ast.ValueSpec).Names {
					defaults[n.Name] = true
				}
			}
		}
	}
	if len(defaults) < 10 {
		t.Fatalf("found only %d defaults in config_defaults.go", len(defaults))
	}
	for name, f := range files {
		if name == "config_defaults.go" {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && defaults[id.Name] {
				t.Errorf("%s names %s: apply defaults in config_defaults.go only", fset.Position(id.Pos()), id.Name)
			}
			return true
		})
	}
}
