package tool

import (
	"encoding/json"
	"reflect"

	"github.com/toolgate/toolgate/api"
)

// Dialect is a client's tool vocabulary mapped onto the registry's tools:
// Claude Code's Read, Edit and Bash, or the Messages API's client tools.
// Each dialect is a package under dialect/, which declares it; the
// coordinator applies it. Cline's vocabulary is the registry's own: its
// Dialect has no Tools.
//
// A dialect works at the edges of the pipeline only: its tools decode and
// check their own input, then name a registry tool and that tool's input
// (before prepare); after execute they may reword the result. Handlers
// never learn which dialect called them.
type Dialect struct {
	Name api.Dialect
	// Tools are the dialect's own tools; none means the dialect speaks
	// the registry's vocabulary (Cline's names and parameters).
	Tools []*DialectTool
	// InvalidInput, when set, words an input of one of the dialect's
	// tools that failed decoding or validation as the dialect's client
	// words it, from the input as sent; "" keeps toolgate's words.
	InvalidInput func(t *DialectTool, raw json.RawMessage) string
	// UnknownTool, when set, words a tool name no dialect has as the
	// dialect's client does.
	UnknownTool func(name string) string
	// PlainResults makes every call of the dialect's sessions a
	// Call.PlainResults one: the dialect words results itself (its
	// mappings' Result), so handlers leave out the registry's client
	// texts.
	PlainResults bool
	// Texts word the results of the registry's tools in the dialect's
	// sessions (Call.Texts); nil takes the default dialect's, the one a
	// session that names none speaks (api.DefaultDialect).
	Texts Texts
	// ListSchema, when set, rewrites the input schema a registry tool is
	// listed with in the pool of a dialect that speaks the registry's
	// vocabulary (no Tools of its own): parameters its client adds to
	// calls, markers of toolgate's extensions. What it adds must be what
	// the pipeline accepts (task_progress is taken out before decoding),
	// so the listed schema and the check still agree.
	ListSchema func(name string, schema json.RawMessage) json.RawMessage
	// HooksAfterApproval runs PreToolUse hooks after the policy and the
	// approval, then judges an input a hook replaced again without asking
	// a second time, as Cline runs them; otherwise hooks come first, as
	// Claude Code runs them, so the policy judges the input that will run.
	HooksAfterApproval bool
	// ParamAliases are parameter names the dialect's client sends in place
	// of a registry tool's, by tool: alias to parameter. The alias's value
	// becomes the parameter when that is absent or an empty string; the
	// alias is dropped either way. For a dialect without Tools only.
	ParamAliases map[string]map[string]string
	// EmptyIsMissing makes a required string parameter sent as "" a
	// missing one (answered with Texts.MissingParam), as the client's
	// handlers test them. For a dialect without Tools only.
	EmptyIsMissing bool
	// MCPNameMark joins a server key (its uid or name) and a tool in the
	// client's own names of MCP tools, "<key><mark><tool>", which become
	// use_mcp_tool calls; "" when the client has none.
	MCPNameMark string
	// IndependentCalls keeps a failed call of the dialect's sessions from
	// cancelling the other calls of its message (cascade_tools): the
	// client runs parallel calls independently, a non-zero exit included.
	IndependentCalls bool
	// SearchAll makes every call of the dialect's sessions a
	// Call.SearchAll one: its client's search hands ripgrep a glob, which
	// overrides the ignore rules (Cline's regexSearchFiles passes --glob
	// with the file pattern or '*').
	SearchAll bool
	// CommandEnv are variables the dialect's client sets in its commands'
	// environment (Codex's NO_COLOR, LANG, CODEX_CI ...), which a
	// model's commands in its sessions expect to see: every call of its
	// sessions is a Call.CommandEnv one. The configured env wins.
	CommandEnv map[string]string
}

// DialectTool is one tool of a dialect.
type DialectTool struct {
	Name        string
	Description string
	// InputSchema is the JSON Schema of the dialect's own input, derived
	// from the same struct that decodes it.
	InputSchema json.RawMessage
	// Targets are the registry tools the tool's calls may map onto. They
	// decide whether the tool is listed: a bare deny rule or plan mode
	// that removes every target removes the tool.
	Targets []string
	// APIType is the "type" of a Messages API built-in client tool
	// (text_editor_20250728), which clients declare by type and name
	// only; empty for tools declared with a schema.
	APIType string
	// Grammar makes a freeform tool of it: its call is text the grammar
	// describes, which arrives as the input's one string field.
	Grammar *api.ToolGrammar

	inputType reflect.Type
	mapIn     func(env MapEnv, in any) (Mapping, error)
}

// NewInput returns a pointer to a fresh zero input of the dialect tool.
func (t *DialectTool) NewInput() any { return reflect.New(t.inputType).Interface() }

// InputType is the dialect tool's input struct type.
func (t *DialectTool) InputType() reflect.Type { return t.inputType }

// Map translates a decoded, validated input for the registry.
func (t *DialectTool) Map(env MapEnv, in any) (Mapping, error) { return t.mapIn(env, in) }

// MapEnv is what a dialect's mapping may consult.
type MapEnv struct {
	Workspace *Workspace
	// Has reports whether the registry serves a tool name (web_fetch
	// exists only when configured).
	Has func(name string) bool
	// Dir is the session's shell directory, for a dialect whose shell
	// keeps its working directory between commands; nil outside a session.
	Dir *ShellDir
}

// Mapping is a dialect call translated for the registry: the tool to run,
// its input, and how to word its result for the dialect's model.
type Mapping struct {
	Tool  string
	Input any
	// Result rewords the tool's result; nil keeps it. code is the
	// call's error code, "" when it succeeded.
	Result func(res Result, code string) Result
	// Unsandboxed asks to run the call's command outside the sandbox
	// (Claude Code's dangerouslyDisableSandbox). The policy puts every
	// such call before the user, whatever the rules and the mode allow,
	// or refuses it; only an approved call runs unconfined.
	Unsandboxed bool
}

// DialectSpec declares a dialect tool with a typed input, as Spec declares
// a registry tool.
type DialectSpec[In any] struct {
	Name        string
	Description string
	Targets     []string
	APIType     string
	Grammar     *api.ToolGrammar
	// Map translates a decoded, validated input. A *ToolError refuses the
	// call with its code (invalid_input marks the input invalid).
	Map func(env MapEnv, in *In) (Mapping, error)
}

// NewDialectTool erases a DialectSpec's input type. Like NewTool it panics
// on a programmer error, since dialects are built at start-up.
func NewDialectTool[In any](s DialectSpec[In]) *DialectTool {
	if s.Name == "" || s.Map == nil || len(s.Targets) == 0 {
		panic("coordinator: dialect tool spec needs a Name, Targets and a Map")
	}
	_, raw := inputSchema[In]("coordinator: dialect tool " + s.Name)
	return &DialectTool{
		Name: s.Name, Description: s.Description, InputSchema: raw, Targets: s.Targets, APIType: s.APIType, Grammar: s.Grammar,
		inputType: reflect.TypeFor[In](),
		mapIn:     func(env MapEnv, in any) (Mapping, error) { return s.Map(env, in.(*In)) },
	}
}
