package cline

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// toolDef is a tool's name and parameters, as Cline's native tools or
// toolgate's GET /v1/tools list them.
type toolDef struct {
	Name       string
	Properties map[string]json.RawMessage
	Required   []string
}

// clineToolDefs reads the native tools of Cline's first request
// (OpenAI's {"type":"function","function":{...}} shape).
func clineToolDefs(raw json.RawMessage) ([]toolDef, error) {
	var tools []struct {
		Function struct {
			Name       string `json:"name"`
			Parameters struct {
				Properties map[string]json.RawMessage `json:"properties"`
				Required   []string                   `json:"required"`
			} `json:"parameters"`
		} `json:"function"`
	}
	if err := json.Unmarshal(raw, &tools); err != nil {
		return nil, err
	}
	out := make([]toolDef, len(tools))
	for i, t := range tools {
		out[i] = toolDef{Name: t.Function.Name, Properties: t.Function.Parameters.Properties, Required: t.Function.Parameters.Required}
	}
	return out, nil
}

// xmlToolDefs reads the tools Cline's system prompt defines in XML mode:
// each "## <tool>" section of "# Tools", its parameters the lines
// "- <name>: (required)" or "(optional)".
func xmlToolDefs(system string) []toolDef {
	var out []toolDef
	in := false
	for _, line := range strings.Split(system, "\n") {
		switch {
		case strings.HasPrefix(line, "# "):
			in = line == "# Tools"
		case !in:
		case strings.HasPrefix(line, "## "):
			out = append(out, toolDef{Name: strings.TrimSpace(strings.TrimPrefix(line, "## ")), Properties: map[string]json.RawMessage{}})
		case len(out) > 0:
			m := xmlParam.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			t := &out[len(out)-1]
			t.Properties[m[1]] = json.RawMessage("{}")
			if m[2] == "required" {
				t.Required = append(t.Required, m[1])
			}
		}
	}
	return out
}

var xmlParam = regexp.MustCompile(`^- ([a-z_]+): \((required|optional)\)`)

// nativeParamNames are the names toolgate's schemas give parameters that
// a Cline variant names otherwise (the handlers accept both).
var nativeParamNames = map[string]string{"absolutePath": "path"}

// compareToolDefs lists where toolgate's definition of a tool Cline
// offers lacks one of Cline's parameters, disagrees on task_progress or
// requires other parameters than Cline's (but those optional names,
// tool by tool, which toolgate lists optional on purpose). Tools Cline
// runs itself (load_mcp_documentation) must be named client-side instead.
func compareToolDefs(cline, tg []toolDef, clientSide []string, optional map[string][]string) []string {
	byName := map[string]toolDef{}
	for _, t := range tg {
		byName[t.Name] = t
	}
	var diffs []string
	for _, c := range cline {
		t, ok := byName[c.Name]
		if !ok {
			if !slices.Contains(clientSide, c.Name) {
				diffs = append(diffs, c.Name+": not in toolgate's list, nor client-side")
			}
			continue
		}
		var names []string
		for p := range c.Properties {
			names = append(names, p)
		}
		sort.Strings(names)
		for _, p := range names {
			if n, ok := nativeParamNames[p]; ok {
				p = n
			}
			if _, ok := t.Properties[p]; !ok {
				diffs = append(diffs, fmt.Sprintf("%s: toolgate lists no %s", c.Name, p))
			}
		}
		if _, has := t.Properties["task_progress"]; has != (c.Properties["task_progress"] != nil) {
			diffs = append(diffs, fmt.Sprintf("%s: task_progress listed %v, Cline %v", c.Name, has, !has))
		}
		var want []string
		for _, p := range c.Required {
			if n, ok := nativeParamNames[p]; ok {
				p = n
			}
			if !slices.Contains(optional[c.Name], p) {
				want = append(want, p)
			}
		}
		got := slices.Clone(t.Required)
		sort.Strings(want)
		sort.Strings(got)
		if !slices.Equal(got, want) {
			diffs = append(diffs, fmt.Sprintf("%s: toolgate requires %v, Cline %v", c.Name, got, want))
		}
	}
	return diffs
}

// toolgateToolDefs reads GET /v1/tools?dialect=cline.
func toolgateToolDefs(raw json.RawMessage) ([]toolDef, []string, error) {
	var list struct {
		Tools []struct {
			Name        string `json:"name"`
			InputSchema struct {
				Properties map[string]json.RawMessage `json:"properties"`
				Required   []string                   `json:"required"`
			} `json:"input_schema"`
		} `json:"tools"`
		ClientSide []string `json:"client_side"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, nil, err
	}
	out := make([]toolDef, len(list.Tools))
	for i, t := range list.Tools {
		out[i] = toolDef{Name: t.Name, Properties: t.InputSchema.Properties, Required: t.InputSchema.Required}
	}
	return out, list.ClientSide, nil
}
