// Package sandbox confines the processes toolgate starts for a model
// (commands, hooks, subagent runners, MCP servers that ask for it).
//
// The primary layer is bubblewrap: a read-only root, the workspace and the
// configured caches writable, a private /tmp and /dev, credential places,
// toolgate's own files and ignored workspace files masked, a PID namespace
// of its own (when the command ends, everything left in it dies), no
// network unless allowed, and no capabilities. Inside it, and alone where
// bubblewrap cannot run, a small re-exec of toolgate's own binary applies
// Landlock (writes limited to the same set, TCP connect and bind refused
// without network), joins the run's limit cgroups, sets rlimits and execs
// the command. Where neither layer works, commands are refused unless the
// configuration turns the sandbox off explicitly.
package sandbox
