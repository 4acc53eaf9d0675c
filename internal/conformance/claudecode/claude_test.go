package claudecode

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Version is the Claude Code release the harness runs; test.sh installs
// it (npm @anthropic-ai/claude-code, its native binary from
// @anthropic-ai/claude-code-linux-x64).
const Version = "2.1.197"

// claudeBinary finds the claude program test.sh installed under
// TOOLGATE_CLAUDE_CODE_DIR. Without it the test is skipped, except in CI,
// where a missing oracle is a failure.
func claudeBinary(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("TOOLGATE_CLAUDE_CODE_DIR")
	if dir == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("TOOLGATE_CLAUDE_CODE_DIR is not set: test.sh installs @anthropic-ai/claude-code@" + Version + " and sets it")
		}
		t.Skip("TOOLGATE_CLAUDE_CODE_DIR is not set: test.sh installs @anthropic-ai/claude-code@" + Version + " and sets it")
	}
	bin := filepath.Join(dir, "node_modules", ".bin", "claude")
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatalf("%s --version: %v", bin, err)
	}
	if want := Version + " (Claude Code)\n"; string(out) != want {
		t.Fatalf("%s --version = %q, want %q", bin, out, want)
	}
	return bin
}

// runClaude runs Claude Code in print mode in workspace against the mock
// model: its own HOME, no telemetry, no updater, no traffic but the
// model's, every permission granted (the comparison is about results, not
// prompts), Glob and Grep offered (2.1 leaves them out otherwise) and
// TodoWrite instead of the Task* tools. Its stream-json output goes to
// log; env adds variables (KEY=value).
func runClaude(ctx context.Context, bin, workspace, home, model, log string, env ...string) error {
	return runClaudeWith(ctx, bin, workspace, home, model, log, []string{"--dangerously-skip-permissions", "--allowedTools", "Glob,Grep"}, env...)
}

// runClaudeWith is runClaude with other permission flags than every
// permission granted.
func runClaudeWith(ctx context.Context, bin, workspace, home, model, log string, flags []string, env ...string) error {
	out, err := os.Create(log)
	if err != nil {
		return err
	}
	defer out.Close()
	args := append([]string{"-p", promptMarker, "--output-format", "stream-json", "--verbose"}, flags...)
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = workspace, out, out
	cmd.Env = []string{
		"HOME=" + home, "PATH=" + os.Getenv("PATH"), "TMPDIR=" + filepath.Join(home, "tmp"),
		"ANTHROPIC_BASE_URL=" + model, "ANTHROPIC_API_KEY=conformance",
		"DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"CLAUDE_CODE_ENABLE_TASKS=0",
	}
	cmd.Env = append(cmd.Env, env...)
	if os.Geteuid() == 0 {
		// --dangerously-skip-permissions refuses root unless told the
		// machine is a sandbox.
		cmd.Env = append(cmd.Env, "IS_SANDBOX=1")
	}
	if err := os.MkdirAll(filepath.Join(home, "tmp"), 0o755); err != nil {
		return err
	}
	// WebFetch asks claude.ai whether a domain may be fetched before it
	// fetches; the setting skips the question, which has no answer here.
	if err := os.MkdirAll(filepath.Join(home, ".claude"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(home, ".claude", "settings.json"), []byte(`{"skipWebFetchPreflight": true}`), 0o644); err != nil {
		return err
	}
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("claude: %w (its output is in %s)", err, log)
	}
	return nil
}

// promptMarker is the prompt Claude Code starts with; the mock knows its
// main loop by it.
const promptMarker = "CONFORMANCE-SCRIPT-7f3a"
