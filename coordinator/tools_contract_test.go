package coordinator

import "github.com/toolgate/toolgate/coordinator/tool"

// IgnoredNote is tool.IgnoredNote, for the coordinator's tests; no code
// outside them needs the re-export.
func IgnoredNote(n int) string { return tool.IgnoredNote(n) }
