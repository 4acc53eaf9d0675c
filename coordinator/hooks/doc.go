// Package hooks runs PreToolUse and PostToolUse hooks, in Claude Code's
// shape (code.claude.com/docs/en/hooks) and Cline's (.clinerules/hooks):
// the "hooks" section of the config (Config, Matcher, Spec), the runner
// that starts every hook matching a call at once, as a command (through
// internal/process, confined as the coordinator says) or an HTTP POST,
// and the reading of their answers into one Verdict (the strongest
// decision, the first updated input, every added context).
//
// What a verdict does to a call is the coordinator's pipeline stage
// (coordinator/hooks_stage.go); this package imports internal/ only.
package hooks
