package cline

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// clineRun is what one Cline run produced: each script call's result
// messages (by the call's index in the run), the requests' tool
// definitions, and the CLI's output for a failure's message.
type clineRun struct {
	results  map[int][]chatMessage
	requests []chatRequest
	output   []byte
}

// runCline plays calls to Cline in workspace ws, headless or over ACP,
// with the mode's model for that kind of run.
func runCline(ctx context.Context, modules, scratch string, m mode, headless bool, calls []call, ws string) (*clineRun, error) {
	model := m.ACPModel
	if headless {
		model = m.CLIModel
	}
	turns := make([]Turn, len(calls))
	for i, c := range calls {
		turns[i] = c.turn(m, model, ws)
	}
	mock, err := startMock(turns, doneTurn(m))
	if err != nil {
		return nil, err
	}
	defer mock.close()
	if err := os.MkdirAll(scratch, 0o755); err != nil {
		return nil, err
	}
	cli, err := newClineCLI(modules, scratch, model, mock.URL)
	if err != nil {
		return nil, err
	}
	const prompt = "Run the conformance script."
	var out []byte
	if headless {
		out, err = cli.headless(ctx, ws, prompt)
	} else {
		playedOut := func() (int, bool) {
			last := len(mock.results()) - 1
			for _, req := range mock.Requests() {
				n := 0
				for _, msg := range req.Messages {
					if msg.Role == "assistant" {
						n++
					}
				}
				last = max(last, n)
			}
			return last, last >= len(calls)
		}
		next := func(turn int) string {
			if turn >= 0 && turn < len(calls) && calls[turn].Answer != "" {
				return calls[turn].Answer
			}
			return "continue"
		}
		out, err = cli.acp(ctx, ws, prompt, playedOut, next)
	}
	_ = os.WriteFile(filepath.Join(scratch, "cline.log"), out, 0o644)
	run := &clineRun{results: mock.results(), requests: mock.Requests(), output: out}
	if b, err := json.MarshalIndent(run.results, "", " "); err == nil {
		_ = os.WriteFile(filepath.Join(scratch, "results.json"), b, 0o644)
	}
	// The first request's tool definitions (native mode) and system
	// prompt (which holds them in XML mode), for a look at what Cline
	// offers the model.
	if len(run.requests) > 0 {
		first := run.requests[0]
		_ = os.WriteFile(filepath.Join(scratch, "tools.json"), first.Tools, 0o644)
		if len(first.Messages) > 0 {
			_ = os.WriteFile(filepath.Join(scratch, "system.txt"), []byte(strings.Join(first.Messages[0].texts(), "\n")), 0o644)
		}
	}
	var times []string
	for _, r := range run.requests {
		times = append(times, r.At.Format("15:04:05.000"))
	}
	_ = os.WriteFile(filepath.Join(scratch, "request-times.txt"), []byte(strings.Join(times, "\n")), 0o644)
	if err != nil && ctx.Err() != nil {
		return run, fmt.Errorf("cline (%s, %s): %w", m.Name, model, ctx.Err())
	}
	return run, nil
}

// loadClineRun reads the results a run kept in its scratch directory.
func loadClineRun(scratch string) (*clineRun, error) {
	b, err := os.ReadFile(filepath.Join(scratch, "results.json"))
	if err != nil {
		return nil, err
	}
	run := &clineRun{}
	if err := json.Unmarshal(b, &run.results); err != nil {
		return nil, err
	}
	// The first request as far as it was kept: its tools and system
	// prompt, for the check of the tool definitions.
	tools, _ := os.ReadFile(filepath.Join(scratch, "tools.json"))
	system, _ := os.ReadFile(filepath.Join(scratch, "system.txt"))
	content, _ := json.Marshal(string(system))
	first := chatRequest{Messages: []chatMessage{{Role: "system", Content: content}}}
	if len(tools) > 0 {
		first.Tools = tools
	}
	run.requests = []chatRequest{first}
	return run, nil
}
