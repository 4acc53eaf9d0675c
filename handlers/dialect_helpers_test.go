package handlers

import (
	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// testDialect stands in for a dialect package, which handlers' tests
// cannot import (a dialect imports handlers): a dialect named name that
// words results itself (PlainResults) and has the tools given.
func testDialect(name api.Dialect, tools ...*tool.DialectTool) tool.Dialect {
	return tool.Dialect{Name: name, PlainResults: true, Tools: tools}
}

// grepTool is a dialect's Grep mapped onto grep_files as Claude Code's is.
func grepTool() *tool.DialectTool {
	return tool.NewDialectTool(tool.DialectSpec[GrepInput]{
		Name: "Grep", Description: "Search file contents.", Targets: []string{"grep_files"},
		Map: func(env tool.MapEnv, in *GrepInput) (tool.Mapping, error) {
			return tool.Mapping{Tool: "grep_files", Input: in}, nil
		},
	})
}
