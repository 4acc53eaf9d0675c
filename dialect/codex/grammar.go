package codex

import "github.com/toolgate/toolgate/api"

// patchGrammar is the Lark grammar of the patch text apply_patch takes,
// written from the format internal/patch parses: a Begin/End Patch frame
// around file sections, an update's hunks each opened by an "@@" line
// (with optional context text) and made of " ", "-" and "+" lines. Codex
// declares apply_patch as a custom tool with a Lark grammar, so a model
// constrained by it writes patches that parse; this grammar accepts the
// same sections and markers.
var patchGrammar = &api.ToolGrammar{Syntax: "lark", Definition: `start: "*** Begin Patch" NL section+ "*** End Patch" NL?

section: added_file | deleted_file | updated_file
added_file: "*** Add File: " LINE NL plus_line+
deleted_file: "*** Delete File: " LINE NL
updated_file: "*** Update File: " LINE NL moved_to? hunk*
moved_to: "*** Move to: " LINE NL

hunk: anchor? body_line+ end_of_file?
anchor: ("@@" | "@@ " LINE) NL
body_line: (" " | "-" | "+") LINE? NL
plus_line: "+" LINE? NL
end_of_file: "*** End of File" NL

LINE: /[^\r\n]+/
NL: "\n"
`}
