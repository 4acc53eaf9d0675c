package coordinator

import (
	"reflect"
	"time"

	"github.com/toolgate/toolgate/coordinator/tool"
)

// The tool contract lives in package tool, which handlers import instead
// of the whole coordinator. The coordinator names its types here so that
// the pipeline, the server and tests that already hold a coordinator need
// no second import; each name is the same type, not a copy.
type (
	Tool              = tool.Tool
	Spec[In any]      = tool.Spec[In]
	Call              = tool.Call
	callRuntime       = tool.Runtime
	Result            = tool.Result
	ToolError         = tool.ToolError
	InterruptBehavior = tool.InterruptBehavior
	CommandLine       = tool.CommandLine
	CommandConfig     = tool.CommandConfig
	KeptOutput        = tool.KeptOutput
	Workspace         = tool.Workspace
	FileMemory        = tool.FileMemory
	FileState         = tool.FileState
	Prior             = tool.Prior
	ToolEnv           = tool.Env
	Factory           = tool.Factory
	Registration      = tool.Registration
	Dialect           = tool.Dialect
	DialectTool       = tool.DialectTool
	MapEnv            = tool.MapEnv
	Mapping           = tool.Mapping
)

// Interrupt behaviors, as in package tool.
const (
	InterruptCancel = tool.InterruptCancel
	InterruptBlock  = tool.InterruptBlock
)

// NewTool is tool.NewTool, and panics as registration would when a
// validate tag of the input has no sentence.
func NewTool[In any](s Spec[In]) *Tool {
	t := tool.NewTool(s)
	checkRuleSentences(t.Name, t.InputType(), map[reflect.Type]bool{})
	return t
}

// Errorf is tool.Errorf.
func Errorf(code, format string, args ...any) *ToolError { return tool.Errorf(code, format, args...) }

// TextResult is tool.TextResult.
func TextResult(text string) Result { return tool.TextResult(text) }

// OpenWorkspace is tool.OpenWorkspace.
func OpenWorkspace(dir string) (*Workspace, error) { return tool.OpenWorkspace(dir) }

// StateOf is tool.StateOf.
func StateOf(data []byte, modTime time.Time) FileState { return tool.StateOf(data, modTime) }

// NewFileMemory returns an empty file memory governed by cfg's read
// requirement and revert bounds.
func NewFileMemory(cfg Config) *FileMemory {
	return tool.NewFileMemory(tool.FileMemoryConfig{
		RequireRead: cfg.RequireReadBeforeEdit, RevertMaxCount: cfg.RevertMaxCount, RevertMaxBytes: cfg.RevertMaxBytes,
	})
}
