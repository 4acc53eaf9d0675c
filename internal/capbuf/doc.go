// Package capbuf is a buffer that keeps the first bytes written to it, up
// to a cap, and notes that it cut the rest: what a hook's output or a
// subagent's answer may hold. It imports no layer.
package capbuf
