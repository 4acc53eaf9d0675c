// Package policy judges a tool call against the permission rules: it
// owns the rules (Claude Code's syntax, parsed and matched: tool names,
// command patterns, gitignore-style path globs, web domains), the
// managed policy's switches, the subject a call is judged as (the
// workspace paths it touches, its command line, its web host), the
// permission decision (allow, ask or deny, with the reason the user and
// the model are told) and the checks no allow rule overrides: protected
// files, paths outside the workspace, risky command lines, git commands
// that may show ignored files or start programs the repository names,
// hard links to denied files and the permission modes.
//
// The coordinator's policy stage (coordinator/policy_stage.go) builds a
// Subject for each call, asks Decide for a Verdict and acts on it: it
// refuses, waits for the user's approval or lets the call run. What a
// session holds (its own rules, its mode, the approvals waiting and the
// messages the user rejected) stays with the session in the coordinator
// and is passed in; the ignore files are watched by the coordinator and
// their rules passed in as an *ignore.Matcher.
//
// It may import api, coordinator/tool (the tool declarations a subject
// is read from) and internal/; never the coordinator
// (imports_test.go: seamImports).
package policy
