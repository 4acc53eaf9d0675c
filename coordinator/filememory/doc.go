// Package filememory keeps a session's memory of the files it read and
// wrote: the state each read or write saw (so that an edit of a file
// changed on disk behind the model's back is refused), the prior content
// of recent edits within the revert bounds (so that a call can be
// reverted, and the store can mirror them across restarts), the read
// counts and turns behind Cline's repeated-read notes, and the windows
// behind Claude Code's "unchanged" reads. Memory implements the tool
// contract's Files, which is all a handler sees of it; the coordinator
// keeps one per session and uses the rest (read turns, reverts, the
// store's mirror).
//
// The package imports api, the tool contract and internal/ only
// (imports_test.go: seamImports).
package filememory
