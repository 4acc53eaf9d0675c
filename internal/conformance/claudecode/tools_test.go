package claudecode

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/conformance"
)

// TestToolDefinitionsMatch records the tools array Claude Code sends the
// model and compares, for each tool both offer, the parameter names,
// types (integer is not number), enums and required lists with
// toolgate's GET /v1/tools?dialect=claude_code: any difference fails.
// Descriptions are not compared: toolgate's are its own words.
func TestToolDefinitionsMatch(t *testing.T) {
	bin := claudeBinary(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	ws := workspace(t)
	mock := newMockModel(promptMarker, func(int) (string, map[string]any, bool) { return "", nil, false }, nil)
	defer mock.close()
	home := t.TempDir()
	if err := runClaude(ctx, bin, ws, home, mock.srv.URL, filepath.Join(home, "out.jsonl")); err != nil {
		out, _ := os.ReadFile(filepath.Join(home, "out.jsonl"))
		t.Fatalf("%v\n%s", err, tail(out, 4000))
	}
	var theirs []toolDef
	if err := json.Unmarshal(mock.offered(), &theirs); err != nil || len(theirs) == 0 {
		t.Fatalf("Claude Code's tools array: %v (%d tools)", err, len(theirs))
	}
	tg := conformance.StartToolgate(t, ws, nil)
	var ours struct {
		Tools []toolDef `json:"tools"`
	}
	if err := tg.Do(ctx, http.MethodGet, "/v1/tools?dialect=claude_code", nil, &ours, http.StatusOK); err != nil {
		t.Fatal(err)
	}
	byName := map[string]toolDef{}
	for _, d := range ours.Tools {
		byName[d.Name] = d
	}
	var diffs, missing []string
	for _, d := range theirs {
		o, ok := byName[d.Name]
		if !ok {
			missing = append(missing, d.Name)
			continue
		}
		a, b := schemaFacts(d.InputSchema, d.Name), schemaFacts(o.InputSchema, d.Name)
		for _, f := range a {
			if !slices.Contains(b, f) {
				diffs = append(diffs, "Claude Code only: "+f)
			}
		}
		for _, f := range b {
			if !slices.Contains(a, f) {
				diffs = append(diffs, "toolgate only:    "+f)
			}
		}
	}
	t.Logf("tool definitions: %d differences over the tools both offer; Claude Code tools toolgate does not list: %s",
		len(diffs), strings.Join(missing, ", "))
	if len(diffs) > 0 {
		t.Errorf("%d definition differences:\n%s", len(diffs), strings.Join(diffs, "\n"))
	}
}

// nonNull is a schema type without the null a toolgate optional allows.
func nonNull(t any) string {
	if list, ok := t.([]any); ok {
		var rest []string
		for _, x := range list {
			if x != "null" {
				rest = append(rest, fmt.Sprint(x))
			}
		}
		return strings.Join(rest, ",")
	}
	return fmt.Sprint(t)
}

// toolDef is a tool definition as both sides list it.
type toolDef struct {
	Name        string         `json:"name"`
	InputSchema map[string]any `json:"input_schema"`
}

// schemaFacts lists what a schema says about its parameters, one fact a
// line: each property's type and enum, each object's required list, down
// through array items and nested objects. toolgate's schemas let an
// optional parameter be null (["null","integer"], an enum holding null),
// which means "left out", as leaving it out does in Claude Code's: the
// type compared is the other one, and null is not an enum value.
func schemaFacts(schema map[string]any, at string) []string {
	var out []string
	if req, ok := schema["required"].([]any); ok && len(req) > 0 {
		names := make([]string, len(req))
		for i, r := range req {
			names[i] = fmt.Sprint(r)
		}
		sort.Strings(names)
		out = append(out, at+" required "+strings.Join(names, ","))
	}
	props, _ := schema["properties"].(map[string]any)
	for name, p := range props {
		ps, _ := p.(map[string]any)
		path := at + "." + name
		out = append(out, path+" type "+nonNull(ps["type"]))
		if enum, ok := ps["enum"].([]any); ok {
			var vals []string
			for _, v := range enum {
				if v != nil {
					vals = append(vals, fmt.Sprint(v))
				}
			}
			sort.Strings(vals)
			out = append(out, path+" enum "+strings.Join(vals, ","))
		}
		out = append(out, schemaFacts(ps, path)...)
		if items, ok := ps["items"].(map[string]any); ok {
			out = append(out, path+"[] type "+nonNull(items["type"]))
			out = append(out, schemaFacts(items, path+"[]")...)
		}
	}
	sort.Strings(out)
	return out
}
