package cline

import (
	"encoding/json"
	"slices"
)

// taskProgressParam is the parameter Cline adds to its tools for its focus
// chain (core/prompts/system-prompt/tools, TASK_PROGRESS_PARAMETER); the
// pipeline takes it out of every call before the input is decoded.
const taskProgressParam = "task_progress"

// taskProgressDescription is the parameter's instruction, Cline's words.
const taskProgressDescription = "A checklist showing task progress after this tool use is completed. The task_progress parameter " +
	"must be included as a separate parameter inside of the parent tool call, it must be separate from other parameters such as " +
	"content, arguments, etc. (See 'UPDATING TASK PROGRESS' section for more details)"

// noTaskProgress are the tools whose Cline definition has no task_progress
// (as cline@2.18.0 sends them, native and XML alike).
var noTaskProgress = []string{"execute_command"}

// extensions are the parameters toolgate adds to Cline's tools: they are
// marked in the listed schema with ExtensionKey, so a client that builds
// Cline's prompt from the list can leave them out.
var extensions = map[string][]string{
	"execute_command":   {"cwd", "background", "tty", "stdin", "yield_ms"},
	"plan_mode_respond": {"options"},
}

// alsoRequired are parameters Cline's definition requires that toolgate's
// check lets a call leave out: the pool lists them required, as Cline's
// do, so a client that builds Cline's prompt from it tells the model what
// Cline tells it. The handler still runs a call without them, as Cline's
// does (UseMcpToolHandler calls the tool with no arguments), so every call
// the listed schema allows is one the check accepts.
var alsoRequired = map[string][]string{
	"use_mcp_tool": {"arguments"},
}

// ExtensionKey marks a parameter toolgate adds to a client's tool: a JSON
// Schema annotation, with no effect on what the schema accepts.
const ExtensionKey = "x-toolgate-extension"

// listSchema is a registry tool's schema as Cline's pool lists it: with
// Cline's task_progress where Cline's tool has it, Cline's required
// parameters required, and toolgate's own parameters marked. A schema it
// cannot read is listed unchanged.
func listSchema(name string, schema json.RawMessage) json.RawMessage {
	var s map[string]any
	if json.Unmarshal(schema, &s) != nil {
		return schema
	}
	props, ok := s["properties"].(map[string]any)
	if !ok {
		return schema
	}
	for _, p := range extensions[name] {
		if prop, ok := props[p].(map[string]any); ok {
			prop[ExtensionKey] = true
		}
	}
	if _, has := props[taskProgressParam]; !has && !slices.Contains(noTaskProgress, name) {
		props[taskProgressParam] = map[string]any{"type": []string{"null", "string"}, "description": taskProgressDescription}
	}
	if req := withRequired(s["required"], alsoRequired[name], props); len(req) > 0 {
		s["required"] = req
	}
	out, err := json.Marshal(s)
	if err != nil {
		return schema
	}
	return out
}

// withRequired is a schema's required list with the names of extra that
// are properties of the schema added, in order, each once.
func withRequired(req any, extra []string, props map[string]any) []any {
	list, _ := req.([]any)
	for _, p := range extra {
		if _, ok := props[p]; ok && !slices.Contains(list, any(p)) {
			list = append(list, p)
		}
	}
	return list
}
