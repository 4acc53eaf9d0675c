// Package codex measures toolgate against the real Codex CLI: the pinned
// `codex exec` runs against a scripted mock Responses API on loopback, the
// same calls go to toolgate (a real process, over HTTP) on an identical
// workspace, and the outputs and the files are compared. It imports no
// layer of toolgate.
package codex
