package coordinator

import (
	"reflect"

	"github.com/toolgate/toolgate/coordinator/filememory"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// NewTool is tool.NewTool, and panics as registration would when a
// validate tag of the input has no sentence.
func NewTool[In any](s tool.Spec[In]) *tool.Tool {
	t := tool.NewTool(s)
	checkRuleSentences(t.Name, t.InputType(), map[reflect.Type]bool{})
	return t
}

// NewFileMemory returns an empty file memory governed by cfg's read
// requirement and revert bounds.
func NewFileMemory(cfg Config) *filememory.Memory {
	return filememory.New(filememory.Config{
		RequireRead: cfg.RequireReadBeforeEdit, RevertMaxCount: cfg.RevertMaxCount, RevertMaxBytes: cfg.RevertMaxBytes,
	})
}
