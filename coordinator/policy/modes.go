package policy

import (
	"fmt"
	"strings"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// Claude Code's permission modes (code.claude.com/docs/en/permission-modes)
// beside Cline's act and plan. A mode only sets the baseline: deny rules,
// ask rules, ignore rules, protected files and paths outside the workspace
// decide the same in every mode.

// CheckMode validates a mode a client asks a session to take: a known
// mode, and bypassPermissions only when the managed policy allows it.
func (p *Policy) CheckMode(m api.Mode) error {
	if m == "" {
		return nil
	}
	known := false
	names := make([]string, 0, len(api.Modes()))
	for _, x := range api.Modes() {
		known = known || x == m
		names = append(names, string(x))
	}
	if !known {
		msg := "must be one of " + strings.Join(names, ", ")
		return &api.Error{Code: api.CodeValidation, Message: fmt.Sprintf("unknown mode %q: %s", m, msg), Fields: map[string]string{"mode": msg}}
	}
	if m == api.ModeBypassPermissions && !p.cfg.AllowBypassPermissions {
		msg := "bypassPermissions is off: the managed policy must set allow_bypass_permissions"
		return &api.Error{Code: api.CodeValidation, Message: msg, Fields: map[string]string{"mode": msg}}
	}
	return nil
}

// HookModeName is a mode as Claude Code's hooks name it in
// permission_mode: Cline's act is Claude Code's default.
func HookModeName(m api.Mode) string {
	if m == api.ModeAct || m == "" {
		return string(api.ModeDefault)
	}
	return string(m)
}

// ModeAllows reports whether the session's mode lets a call run that the
// rules and defaults would put before the user. Only asks the mode may
// waive are waived: acceptEdits waives the default prompt of a tool that
// edits workspace files and of a line of filesystem commands (mkdir,
// touch, mv, cp) in the workspace, and the prompt for a line's output
// redirections into workspace files (AskWrites); bypassPermissions waives
// the default prompt and a risky command line's, as allow_all does, but never an ask
// rule, a protected file or a path outside the workspace.
func ModeAllows(m api.Mode, v Verdict, t *tool.Tool, sub *Subject) bool {
	switch {
	case v.Decision != Ask:
		return false
	case m == api.ModeBypassPermissions:
		return v.Kind != AskHard
	case m == api.ModeAcceptEdits:
		return v.Kind == AskWrites || v.Kind == AskDefault && (editsWorkspaceFiles(t, sub) || onlyFileCommands(sub))
	}
	return false
}

// acceptEditsCommands are the filesystem commands Claude Code's acceptEdits
// mode runs without asking (code.claude.com/docs/en/permission-modes:
// "common filesystem commands (mkdir, touch, mv, cp)").
var acceptEditsCommands = map[string]bool{"mkdir": true, "touch": true, "mv": true, "cp": true}

// onlyFileCommands reports whether a command line is made only of those
// commands, each run inside the workspace. Its words naming paths outside
// the workspace, protected files and risky constructs ask before a mode is
// consulted (Policy.mustAsk), so they never reach here as a default ask.
func onlyFileCommands(sub *Subject) bool {
	if sub.Command == nil || len(sub.Command.Commands) == 0 || sub.Background {
		return false
	}
	for _, c := range sub.Command.Commands {
		if len(c.Args) == 0 || !acceptEditsCommands[c.Args[0]] || strings.HasPrefix(c.Dir, "/") {
			return false
		}
	}
	return true
}

// editsWorkspaceFiles reports whether a call is a file edit: a tool that
// writes, naming workspace paths, that runs no command and reaches no MCP
// server or web address. The subject's paths are workspace-relative: a
// path outside the workspace never gets this far.
func editsWorkspaceFiles(t *tool.Tool, sub *Subject) bool {
	return t.Writes && !t.RunsCommands() && sub.Command == nil && sub.Tool != tool.UseMCPTool && sub.URL == "" && len(sub.Paths) > 0
}

// PlanModeRefusal says why plan mode refuses a call: tools that change
// files, and command lines that are not read-only. Reading commands (ls,
// cat, git status, grep ...) still run, as exploring is what planning is.
func PlanModeRefusal(t *tool.Tool, sub *Subject) (string, bool) {
	switch {
	case sub.Command != nil && sub.Command.ReadOnly():
		return "", false
	case sub.Command != nil:
		return "Plan mode runs only commands that read (such as ls, cat, grep, git status or git diff); this one may change something. " +
			"Switch the session to act mode to run it.", true
	case t.Writes:
		return fmt.Sprintf("Tool %s is not available in plan mode because it changes files. Switch the session to act mode to use it.", t.Name), true
	case t.Name == tool.JobStdinTool:
		// Input to a running command is a command line of its own (a
		// shell, an interpreter), which plan mode cannot judge.
		return "Writing to a running command's input is not available in plan mode: it may change something. " +
			"Switch the session to act mode to use it.", true
	}
	return "", false
}
