package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/toolgate/toolgate/api"
)

// InterruptBehavior says what an interrupt does to a running call.
type InterruptBehavior string

// Interrupt behaviors: cancel stops the call; block lets it finish (writes
// are never torn).
const (
	InterruptCancel InterruptBehavior = "cancel"
	InterruptBlock  InterruptBehavior = "block"
)

// Result is what a handler returns: the content of its tool_result.
type Result struct {
	Content []api.Content
	IsError bool
}

// TextResult is a successful Result holding one text.
func TextResult(text string) Result {
	return Result{Content: []api.Content{api.TextContent(text)}}
}

// ErrorResult is a failed Result holding one text, as a dialect words a
// refusal in its client's words.
func ErrorResult(text string) Result {
	return Result{Content: []api.Content{api.TextContent(text)}, IsError: true}
}

// LastText is the text of the result's last text block, "" when it has
// none: where a handler puts what a dialect rewords (a snippet, a diff).
func (r Result) LastText() string {
	for i := len(r.Content) - 1; i >= 0; i-- {
		if r.Content[i].Type == api.TypeText {
			return r.Content[i].Text
		}
	}
	return ""
}

// ToolError is a handler failure with a stable code (file_changed,
// outside_workspace, ...). Any other error a handler returns becomes code
// tool_failed. Both reach the model as an is_error tool_result.
type ToolError struct {
	Code    string
	Message string
}

func (e *ToolError) Error() string { return e.Message }

// Errorf builds a ToolError with a formatted message.
func Errorf(code, format string, args ...any) *ToolError {
	return &ToolError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Spec declares a tool with a typed input. In is a struct whose json tags
// name the fields, validate tags constrain them and jsonschema tags describe
// them; the tool's JSON Schema and its validation both come from it.
type Spec[In any] struct {
	Name        string
	Description string
	Run         func(ctx context.Context, call *Call, in *In) (Result, error)
	// ConcurrencySafe reports whether this input may run beside other
	// calls. Nil means never.
	ConcurrencySafe func(in *In) bool
	// Interrupt defaults to InterruptCancel.
	Interrupt InterruptBehavior
	// Writes marks a tool that changes the workspace: plan mode refuses it.
	Writes bool
	// AwaitsStart marks a tool whose Run calls Call.Recorded before it
	// does anything with an effect (starts a process, writes a file): the
	// pipeline then writes the call's durable start record while Run
	// prepares, instead of before Run is called. A Run that returns
	// without calling it has run nothing.
	AwaitsStart bool
	// CountsReads marks a tool that counts the session's reads of a file
	// (FileMemory.CountRead): its calls get read turns in block order.
	CountsReads bool
	// Paths lists the workspace paths an input touches, for ignore rules
	// and permission rules.
	Paths func(in *In) []string
	// Walks marks a tool whose Paths are directories it walks, judging
	// every entry it finds by the ignore rules (call.Exclude). The ignore
	// rules then judge such a path by its name alone, as Cline's
	// validateAccess does: a rule for directories only ("private/")
	// leaves the directory open to the walk, which finds each entry below
	// it excluded.
	Walks bool
	// Preview, for tools that write, computes the call's effect as a
	// unified diff without applying it (for approvals and tool.partial).
	Preview func(ctx context.Context, call *Call, in *In) (string, error)
	// Command returns the command line a command tool would run, for the
	// permission rules, ignore rules and the approval preview. Nil for
	// tools that run no command.
	Command func(in *In) CommandLine
	// URL returns the web address an input reaches ("" for none), for
	// domain rules such as web_fetch(domain:example.com). A call with a
	// URL asks by default. Nil for tools that reach no URL.
	URL func(in *In) string
}

// CommandLine is what a command tool's input asks to run, for the policy:
// the line, whether the model asked for approval and the working
// directory (workspace-relative; "" the root).
type CommandLine struct {
	Command          string
	RequiresApproval bool
	Cwd              string
	// Background marks a command started as a session job.
	Background bool
}

// Tool is a registered tool with its input type erased, as the pipeline
// sees it.
type Tool struct {
	Name        string
	Description string
	// InputSchema is the JSON Schema of the input, derived from In.
	InputSchema json.RawMessage
	Interrupt   InterruptBehavior
	Writes      bool
	// AwaitsStart: see Spec.
	AwaitsStart bool
	// CountsReads: see Spec.
	CountsReads bool
	// Walks: see Spec.
	Walks bool

	inputType       reflect.Type
	paramTypes      map[string]string // for ParamTypes
	flatKeys        []string          // for FlatKeys
	flat            bool
	required        []int // for RequiredFields
	requiredOnly    bool
	run             func(ctx context.Context, call *Call, in any) (Result, error)
	concurrencySafe func(in any) bool
	paths           func(in any) []string
	preview         func(ctx context.Context, call *Call, in any) (string, error)
	command         func(in any) CommandLine
	url             func(in any) string
}

// NewTool erases a Spec's input type. It panics on a programmer error (no
// name, no Run, an input type that has no JSON Schema), since tools are
// registered at start-up.
func NewTool[In any](s Spec[In]) *Tool {
	if s.Name == "" || s.Run == nil {
		panic("tool: spec needs a Name and a Run")
	}
	schema, raw := inputSchema[In]("tool " + s.Name)
	t := &Tool{
		Name:        s.Name,
		Description: s.Description,
		InputSchema: raw,
		Interrupt:   s.Interrupt,
		Writes:      s.Writes,
		AwaitsStart: s.AwaitsStart,
		CountsReads: s.CountsReads,
		Walks:       s.Walks,
		inputType:   reflect.TypeFor[In](),
		paramTypes:  paramTypes(schema),
		run: func(ctx context.Context, call *Call, in any) (Result, error) {
			return s.Run(ctx, call, in.(*In))
		},
		concurrencySafe: func(any) bool { return false },
		paths:           func(any) []string { return nil },
	}
	t.flatKeys, t.flat = flatKeys(t.inputType)
	t.required, t.requiredOnly = requiredFields(t.inputType)
	if t.Interrupt == "" {
		t.Interrupt = InterruptCancel
	}
	if s.ConcurrencySafe != nil {
		t.concurrencySafe = func(in any) bool { return s.ConcurrencySafe(in.(*In)) }
	}
	if s.Preview != nil {
		t.preview = func(ctx context.Context, call *Call, in any) (string, error) { return s.Preview(ctx, call, in.(*In)) }
	}
	if s.Paths != nil {
		t.paths = func(in any) []string { return s.Paths(in.(*In)) }
	}
	if s.Command != nil {
		t.command = func(in any) CommandLine { return s.Command(in.(*In)) }
	}
	if s.URL != nil {
		t.url = func(in any) string { return s.URL(in.(*In)) }
	}
	return t
}

// InputType is the type of the tool's input struct, for checks of its
// validate tags at registration.
func (t *Tool) InputType() reflect.Type { return t.inputType }

// ParamTypes maps each top-level parameter to the one JSON type a string
// value may be coerced to (boolean, integer, number, array, object), for
// clients that send every parameter as a string.
func (t *Tool) ParamTypes() map[string]string { return t.paramTypes }

// FlatKeys returns the JSON names of the input's fields, and true, when
// no field holds a struct: an input whose keys are all among them (in
// any case, as encoding/json matches them) has no unknown field at any
// depth. Speed only (flatKeys).
func (t *Tool) FlatKeys() ([]string, bool) { return t.flatKeys, t.flat }

// RequiredFields returns the indexes of the input's fields tagged
// validate:"required", and true, when checking they are set is all the
// validator would do. Speed only (requiredFields).
func (t *Tool) RequiredFields() ([]int, bool) { return t.required, t.requiredOnly }

// NewInput returns a pointer to a fresh zero input value, for decoding.
func (t *Tool) NewInput() any { return reflect.New(t.inputType).Interface() }

// Run executes a decoded, validated input.
func (t *Tool) Run(ctx context.Context, call *Call, in any) (Result, error) {
	return t.run(ctx, call, in)
}

// URL returns the web address a decoded input reaches, "" for none.
func (t *Tool) URL(in any) string {
	if t.url == nil {
		return ""
	}
	return t.url(in)
}

// RunsCommands reports whether the tool runs a command line (see
// Spec.Command), which the policy reads instead of paths.
func (t *Tool) RunsCommands() bool { return t.command != nil }

// Command returns the command line a decoded input would run; the zero
// CommandLine for tools that run no command.
func (t *Tool) Command(in any) CommandLine {
	if t.command == nil {
		return CommandLine{}
	}
	return t.command(in)
}

// ConcurrencySafe reports whether a decoded input may run beside others.
func (t *Tool) ConcurrencySafe(in any) bool { return t.concurrencySafe(in) }

// Paths lists the workspace paths a decoded input touches.
func (t *Tool) Paths(in any) []string { return t.paths(in) }

// HasPreview reports whether the tool can show its effect before it runs.
func (t *Tool) HasPreview() bool { return t.preview != nil }

// Preview computes a decoded input's effect as a unified diff without
// applying it. Tools without a preview return "".
func (t *Tool) Preview(ctx context.Context, call *Call, in any) (string, error) {
	if t.preview == nil {
		return "", nil
	}
	return t.preview(ctx, call, in)
}
