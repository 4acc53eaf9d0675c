package cline

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// ClineVersion is the pinned oracle: the npm package cline@2.18.0 bundles
// the extension's core (3.82.0). cline@3.x is another agent with other
// tools, not this dialect's oracle.
const ClineVersion = "2.18.0"

// clineCLI runs the Cline CLI of one node_modules directory with its own
// HOME and configuration directory, so no run reads or writes the user's.
type clineCLI struct {
	entry  string // dist/cli.mjs
	home   string
	config string
}

// newClineCLI prepares a CLI whose provider is the mock model: Cline's
// "openai" provider (OpenAI-compatible, custom base URL, any key) with
// the given model id, every action auto-approved and telemetry off.
func newClineCLI(modules, scratch, model, baseURL string) (*clineCLI, error) {
	c := &clineCLI{
		entry:  filepath.Join(modules, "cline", "dist", "cli.mjs"),
		home:   filepath.Join(scratch, "home"),
		config: filepath.Join(scratch, "home", ".cline"), // the default, which ACP mode reads
	}
	if _, err := os.Stat(c.entry); err != nil {
		return nil, fmt.Errorf("cline@%s is not installed: %w", ClineVersion, err)
	}
	data := filepath.Join(c.config, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(c.home, 0o755); err != nil {
		return nil, err
	}
	state := map[string]any{
		"actModeApiProvider": "openai", "planModeApiProvider": "openai",
		"actModeOpenAiModelId": model, "planModeOpenAiModelId": model,
		"openAiBaseUrl": baseURL, "welcomeViewCompleted": true, "telemetrySetting": "disabled",
		"autoApprovalSettings": map[string]any{"version": 2, "enabled": true, "maxRequests": 10000,
			"actions": map[string]bool{"readFiles": true, "readFilesExternally": true, "editFiles": true, "editFilesExternally": true,
				"executeSafeCommands": true, "executeAllCommands": true, "useBrowser": false, "useMcp": true}},
	}
	if err := writeJSON(filepath.Join(data, "globalState.json"), state); err != nil {
		return nil, err
	}
	// ripgrep searches files in parallel and prints them in the order its
	// threads finish, so the order of Cline's search_files groups changes
	// from run to run; its configuration file (read since Cline does not
	// pass --no-config) sorts them by path, as toolgate does, so that the
	// comparison measures the results, not the scheduling.
	if err := os.WriteFile(filepath.Join(c.home, "ripgreprc"), []byte("--sort=path\n"), 0o644); err != nil {
		return nil, err
	}
	return c, writeJSON(filepath.Join(data, "secrets.json"), map[string]string{"openAiApiKey": "sk-conformance"})
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// command is the CLI with args, its environment shut off from the
// machine's: its own HOME, no self-update (Cline otherwise runs
// `npm install -g cline@latest` in the background), no telemetry export.
func (c *clineCLI) command(ctx context.Context, dir string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "node", append([]string{c.entry}, args...)...)
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + c.home, "PATH=" + os.Getenv("PATH"), "CLINE_NO_AUTO_UPDATE=1",
		"CLINE_OTEL_TELEMETRY_ENABLED=false", "NO_COLOR=1", "TERM=dumb", "RIPGREP_CONFIG_PATH=" + filepath.Join(c.home, "ripgreprc")}
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// headless runs one task in yolo mode (every action approved, the task
// ends at attempt_completion or at Cline's first error message).
func (c *clineCLI) headless(ctx context.Context, workspace, prompt string) ([]byte, error) {
	cmd := c.command(ctx, workspace, "task", "--yolo", "--act", "--config", c.config, "--cwd", workspace, prompt)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.Bytes(), err
}

// acp runs Cline in ACP mode in workspace: one session, the prompt, then,
// each time Cline ends its turn before the script is played out (a
// question, a completion), next(turn) as the user's next prompt, where
// turn is the last script turn the model played. It returns the agent's
// output when the script is played out, Cline exits, or ctx ends.
func (c *clineCLI) acp(ctx context.Context, workspace, prompt string, playedOut func() (int, bool), next func(turn int) string) ([]byte, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := c.command(ctx, workspace, "--acp", "--yolo", "--config", c.config, "--cwd", workspace)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var log, stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	client := newACPClient(stdin, &log)
	served := make(chan struct{})
	go func() { client.serve(stdout); close(served) }()
	err = c.acpSession(ctx, client, workspace, prompt, playedOut, next)
	cancel()
	_ = cmd.Wait()
	<-served
	log.WriteString("\n--- stderr ---\n")
	log.Write(stderr.Bytes())
	return log.Bytes(), err
}

func (c *clineCLI) acpSession(ctx context.Context, client *acpClient, workspace, prompt string, playedOut func() (int, bool), next func(int) string) error {
	if _, err := client.call(ctx, "initialize", map[string]any{"protocolVersion": 1,
		"clientCapabilities": map[string]any{"fs": map[string]bool{"readTextFile": false, "writeTextFile": false}, "terminal": false}}); err != nil {
		return err
	}
	res, err := client.call(ctx, "session/new", map[string]any{"cwd": workspace, "mcpServers": []any{}})
	if err != nil {
		return err
	}
	var sess struct {
		SessionID string `json:"sessionId"`
	}
	if err := json.Unmarshal(res, &sess); err != nil || sess.SessionID == "" {
		return fmt.Errorf("session/new answered %s", res)
	}
	text := prompt
	for {
		if _, err := client.call(ctx, "session/prompt", map[string]any{"sessionId": sess.SessionID,
			"prompt": []any{map[string]string{"type": "text", "text": text}}}); err != nil {
			return err
		}
		turn, done := playedOut()
		if done {
			return nil
		}
		text = next(turn)
	}
}
