// Package cline is Cline's dialect (github.com/cline/cline, v4.0.12).
//
// Cline's vocabulary is the registry's own: the tools of handlers.Default
// carry Cline's names and parameters and answer in Cline's texts, so the
// dialect declares no tools and maps nothing, and its calls get the
// registry's client texts (tool.Call.PlainResults stays false). Its pool
// lists the registry's schemas as Cline's tools have them (listSchema).
package cline

import (
	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// Dialect is Cline's dialect, the default of every session.
func Dialect() tool.Dialect {
	// SearchAll: Cline's regexSearchFiles runs ripgrep with --glob (the
	// file pattern, or '*'), which overrides the ignore rules, so its
	// search_files also searches gitignored and hidden files; it then
	// drops what .clineignore covers, as toolgate's exclusions do.
	return tool.Dialect{Name: api.DialectCline, ListSchema: listSchema, SearchAll: true}
}
