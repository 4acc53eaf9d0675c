package cline

import (
	"fmt"
	"regexp"
	"strings"
)

// The normalisations, the only differences the comparison forgives. Each
// takes away something that is not the tool's result, or that differs by
// construction between two runs:
//
//  1. The workspace path: Cline and toolgate run in two copies of the
//     workspace; both paths become {WS}.
//  2. Cline's wrapper of a result, "[<tool> for '<x>'] Result:\n" before
//     the first text (ToolExecutor.pushToolResult adds it; a client of
//     toolgate adds it itself), and the block "[attempt_completion]
//     Result: Done" it pushes before the user's feedback on a completion.
//  3. Cline's <environment_details> block, which the task adds after
//     every result (open tabs, time, terminals): not a tool result.
//  4. Cline's task_progress reminder block ("# TODO LIST UPDATE
//     REQUIRED", the focus chain's), which the task adds every few
//     results: about the conversation, not a tool result.
//  5. The "(tool did not return anything)" block the ToolExecutor pushes
//     after a handler that already pushed its error and returned nothing,
//     and a block equal to the one before it (in native mode a refusal is
//     pushed twice, once for the streamed partial call and once for the
//     whole): its own bookkeeping, not a tool result.
//  6. The "result missing" tool message Cline's OpenAI message converter
//     answers a native tool call with, its result being in the user
//     message that follows (normalised by rules 2 to 5).
//  7. Where the full output of a long command is kept: Cline's log file
//     (a random name on each run), toolgate's output route
//     (/v1/sessions/{sid}/calls/{id}/output, which a client fetches);
//     both become {LOGFILE}.
//
// Blocks are joined with blockSeparator; an image block is "<image>".

// blockSeparator joins the blocks of one result.
const blockSeparator = "\n--- next block ---\n"

var (
	resultPrefix = regexp.MustCompile(`^\[[a-z_0-9]+( for [^\n]*)?\] Result:\n?`)
	logFilePath  = regexp.MustCompile(`(Full output saved to: |lines written to |output saved to |saved to: )(/\S+\.log|/v1/sessions/[^/\s]+/calls/[^/\s]+/output)`)
)

// normalise applies rules 1 and 7 to a text.
func normalise(text, ws string) string {
	text = strings.ReplaceAll(text, ws, "{WS}")
	return logFilePath.ReplaceAllString(text, "${1}{LOGFILE}")
}

// clineResult is what Cline sent back after a call, normalised.
func clineResult(msgs []chatMessage, ws string) string {
	var parts []string
	for _, m := range msgs {
		if m.Role == "tool" && string(m.Content) == `"result missing"` {
			continue // rule 6
		}
		for _, t := range m.texts() {
			if t == "<image_url block>" {
				parts = append(parts, "<image>")
				continue
			}
			trimmed := strings.TrimSpace(t)
			if strings.HasPrefix(trimmed, "<environment_details>") || strings.HasPrefix(trimmed, "# TODO LIST UPDATE REQUIRED") {
				continue // rules 3 and 4
			}
			if t == "[attempt_completion] Result: Done" {
				continue // rule 2
			}
			t = resultPrefix.ReplaceAllString(t, "") // rule 2
			t = normalise(t, ws)
			if t == "(tool did not return anything)" || len(parts) > 0 && parts[len(parts)-1] == t {
				continue // rule 5
			}
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, blockSeparator)
}

// toolgateResult is toolgate's tool_result, normalised.
func toolgateResult(blocks []block, ws string) string {
	var parts []string
	for _, b := range blocks {
		if b.Type == "image" {
			parts = append(parts, "<image>")
			continue
		}
		parts = append(parts, normalise(b.Text, ws))
	}
	return strings.Join(parts, blockSeparator)
}

// diffLine is a compact account of where two texts part: the common
// prefix's length, then a short window of each from there.
func diffLine(got, want string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	window := func(s string) string {
		end := min(len(s), i+90)
		return fmt.Sprintf("%q", s[i:end])
	}
	return fmt.Sprintf("at byte %d: cline %s | toolgate %s", i, window(want), window(got))
}
