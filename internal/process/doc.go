// Package process runs one shell command the way a tool call needs it: in
// its own session and process group, with stdin on /dev/null, output
// streamed in chunks as it appears, a timeout and cancellation that kill the
// whole group, and a Wait that returns within a grace period even when
// stray processes keep the output pipes open. Output is kept with bounded
// memory: the head and the tail in memory, the rest spilled to a capped
// temporary file.
//
// It owns the life of a child process: start, streamed and bounded output,
// timeout, cancellation and the summary of how it ended. It is a library
// under internal/ and imports no layer of toolgate; execute_command, hooks and
// subagent runners use it.
package process
