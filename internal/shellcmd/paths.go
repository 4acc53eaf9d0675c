package shellcmd

import "slices"

// PathArgs returns every word of the line that may name a file, so that the
// caller can check it against the ignore rules before running anything:
// operands, --opt=value values, short option values (-fFILE), the command
// itself when it is a path, and redirection targets. Each is joined to
// every directory its command may run in (`cd d && cat f` gives d/f, and
// `cd d; cat f` gives d/f and f, since cd may fail), cleaned and
// slash-separated, "." for the workspace root.
//
// Absolute paths, paths climbing out with "../" and paths starting with "~"
// (a home directory) are returned as they are: the caller must refuse them.
// When the analysis has a KindGlob risk, entries may be patterns that match
// more files than they name; a KindParamExpansion or substitution leaves
// raw source such as "$F" in place of the value.
func (a Analysis) PathArgs() []string {
	return slices.Clone(a.paths)
}

// Writes returns the targets of the line's output redirections (>, >>,
// &>, >|, <>), the files it writes whatever its commands are, joined to
// the directories their commands may run in as PathArgs joins them. A
// target holding an expansion keeps its raw source ("$F"), and a risk
// says so.
func (a Analysis) Writes() []string {
	return slices.Clone(a.writes)
}
