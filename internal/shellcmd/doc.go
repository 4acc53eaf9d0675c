// Package shellcmd analyses the bash command lines that execute_command runs,
// failing closed: anything it cannot prove to be a plain list of simple
// commands made of literal words is reported as a [Risk].
//
// Four callers depend on it: the permission rules ([MatchRule] over every
// simple command, and [Analysis.ReadOnly] for auto-approval), the ignore rules
// ([Analysis.PathArgs]), timeouts ([Analysis.LongRunning]) and the scheduler
// (read-only commands may run concurrently).
//
// The analysis assumes what the server guarantees when it runs a command:
// bash non-interactive (no aliases, no extglob, no history expansion), CDPATH
// unset, no "." in PATH, and a repository configuration that the agent cannot
// have rewritten (git runs hooks and filters named in .git/config even for
// "read-only" subcommands, so writes under .git must not be auto-approved).
//
// It owns the reading of a command line: parsing, risks, path arguments,
// read-only and long-running classification and rule matching. It is a
// library under internal/ and imports no layer of toolgate; the coordinator's
// policy and scheduler and the execute_command tool use it.
package shellcmd
