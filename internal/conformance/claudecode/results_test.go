package claudecode

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/conformance"
)

// The ratchet: the figures measured with Claude Code 2.1.197. A change
// that lowers either fails the test; one that raises them raises these.
const (
	identicalFloor = 118
	filesFloor     = 46
	// targetShare is the goal for identical results.
	targetShare = 0.95
)

// TestResultsMatchClaudeCode runs the script through the real Claude Code
// (against the mock model) and through toolgate's claude_code dialect,
// each on its own copy of the generated workspace, and compares every
// result byte for byte after normalisation (conformance.Normalizer), then
// the files left on disk. It prints `identical N of M` and fails when N
// or the files figure falls below the floor, or when the harness breaks
// (a call unanswered, Claude Code failing, a deadline passed).
func TestResultsMatchClaudeCode(t *testing.T) {
	bin := claudeBinary(t)
	began := time.Now()
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()

	wsClient, wsToolgate := workspace(t), workspace(t)
	web, webCert := newWebServer(t)

	outputDir := t.TempDir()
	tg := conformance.StartToolgate(t, wsToolgate, map[string]any{
		"policy": map[string]any{"allow_bypass_permissions": true},
		"tools": map[string]any{"web_fetch": map[string]any{"allow_addresses": []string{web.Listener.Addr().String()}},
			"commands": map[string]any{"output_dir": outputDir}},
	}, "SSL_CERT_FILE="+webCert)
	sid, err := tg.NewSession(ctx, map[string]any{"dialect": "claude_code", "mode": "bypassPermissions"})
	if err != nil {
		t.Fatal(err)
	}

	var mock *mockModel
	home := t.TempDir()
	client := side{workspace: wsClient, web: web.URL, results: func(i int) (conformance.Result, bool) { return mock.result(toolUseID(i)) },
		outputs: claudeOutputs(home)}
	mock = newMockModel(promptMarker, func(i int) (string, map[string]any, bool) {
		if i >= len(script) {
			return "", nil, false
		}
		return script[i].name, client.input(i), true
	}, webFetchHelper)
	defer mock.close()
	if dir := os.Getenv("TOOLGATE_CONFORMANCE_DUMP"); dir != "" {
		// Every Messages request whole, numbered, for a look at what
		// Claude Code sent.
		var n atomic.Int64
		mock.dump = func(body []byte) {
			_ = os.WriteFile(filepath.Join(dir, fmt.Sprintf("request-%03d.json", n.Add(1))), body, 0o644)
		}
	}
	log := filepath.Join(os.TempDir(), "toolgate-conformance-claude-code.jsonl")
	claudeDone := make(chan error, 1)
	go func() {
		claudeDone <- runClaude(ctx, bin, wsClient, home, mock.srv.URL, log, "NODE_EXTRA_CA_CERTS="+webCert)
	}()

	got := make([]conformance.Result, len(script))
	tgSide := side{workspace: wsToolgate, web: web.URL, results: func(i int) (conformance.Result, bool) { return got[i], true },
		outputs: toolgateOutputs(outputDir, sid)}
	for i, c := range script {
		if got[i], err = tg.Call(ctx, sid, toolUseID(i), c.name, tgSide.input(i)); err != nil {
			t.Fatalf("toolgate, call %d (%s %s): %v", i, c.name, c.note, err)
		}
	}
	if err := <-claudeDone; err != nil {
		out, _ := os.ReadFile(log)
		t.Fatalf("%v\n%s", err, tail(out, 4000))
	}

	outcomes := compare(t, client, tgSide, got)
	// Files get rule 3 too: an inserted notebook cell's id is random.
	ids := conformance.Normalizer{IDs: []*regexp.Regexp{notebookCellID}}
	same, total, fileDiffs := conformance.CompareTrees(wsClient, wsToolgate, nil, ids.Text)
	elapsed := time.Since(began).Round(time.Second)

	var rep bytes.Buffer
	conformance.Report(&rep, outcomes, false)
	fmt.Fprintf(&rep, "files identical %d of %d\n", same, total)
	for _, d := range fileDiffs {
		fmt.Fprintf(&rep, "  %s\n", d)
	}
	n := conformance.Count(outcomes)
	t.Logf("Claude Code %s: identical %d of %d (floor %d, target %d = %.0f%%); files identical %d of %d (floor %d); %s\n%s",
		Version, n, len(outcomes), identicalFloor, int(targetShare*float64(len(outcomes))+0.999), targetShare*100,
		same, total, filesFloor, elapsed, rep.String())
	if err := conformance.Announce("Claude Code %s: identical %d of %d (target %d), files %d of %d",
		Version, n, len(outcomes), int(targetShare*float64(len(outcomes))+0.999), same, total); err != nil {
		t.Log(err)
	}
	writeFullReport(t, outcomes)
	if n < identicalFloor {
		t.Errorf("identical %d of %d, below the floor %d", n, len(outcomes), identicalFloor)
	}
	if same < filesFloor {
		t.Errorf("files identical %d of %d, below the floor %d", same, total, filesFloor)
	}
}

// workspace generates the workspace in a new temporary directory and
// returns its path with symlinks resolved, the path tools report.
func workspace(t *testing.T) string {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := conformance.Generate(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A cell NotebookEdit inserts gets a random id, on either side, and so
// does a background task (named again by TaskOutput and TaskStop).
var (
	taskIDTag    = regexp.MustCompile(`<task_id>([A-Za-z0-9_-]+)</task_id>`)
	stoppedTask  = regexp.MustCompile(`stopped task: ([A-Za-z0-9_-]+) `)
	insertedCell = regexp.MustCompile(`Inserted cell ([0-9a-f]{8})`)
	cellID       = regexp.MustCompile(`cell id="([0-9a-f]{8})"`)
	// savedID names the file a long output was saved to.
	savedID = regexp.MustCompile(`tool-results/([A-Za-z0-9_-]+)\.txt`)
	// notebookCellID is the id in the notebook file.
	notebookCellID = regexp.MustCompile(`"id": "([0-9a-f]{8})"`)
)

// compare pairs each call's two results, normalised, failing the test
// when Claude Code left a call unanswered.
func compare(t *testing.T, client, tg side, got []conformance.Result) []conformance.Outcome {
	ids := []*regexp.Regexp{backgroundID, taskIDTag, stoppedTask, insertedCell, cellID, savedID}
	nc := conformance.Normalizer{Paths: []string{client.workspace}, IDs: ids, Outputs: client.outputs}
	nt := conformance.Normalizer{Paths: []string{tg.workspace}, IDs: ids, Outputs: tg.outputs}
	out := make([]conformance.Outcome, len(script))
	for i, c := range script {
		r, ok := client.results(i)
		if !ok {
			t.Errorf("Claude Code sent no tool_result for call %d (%s %s)", i, c.name, c.note)
		}
		out[i] = conformance.Outcome{Index: i, Name: c.name, Note: c.note, Client: nc.Result(r), Toolgate: nt.Result(got[i])}
	}
	return out
}

// writeFullReport writes every differing pair whole to a file next to
// the test's temporary files (TOOLGATE_CONFORMANCE_REPORT names another).
func writeFullReport(t *testing.T, outcomes []conformance.Outcome) {
	p := os.Getenv("TOOLGATE_CONFORMANCE_REPORT")
	if p == "" {
		p = filepath.Join(os.TempDir(), "toolgate-conformance-claude-code.txt")
	}
	var b bytes.Buffer
	conformance.Report(&b, outcomes, true)
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Logf("full report: %v", err)
		return
	}
	t.Logf("full report: %s", p)
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// webFetchHelper answers the side request Claude Code's WebFetch makes
// to a small model: with the page content it was given, unchanged (the
// text between the first and the last line of three dashes), so that the
// result shows what Claude Code made of the page. Other side requests get
// a fixed title.
func webFetchHelper(prompt string) string {
	first := strings.Index(prompt, "\n---\n")
	last := strings.LastIndex(prompt, "\n---\n")
	if first >= 0 && last > first {
		return prompt[first+5 : last]
	}
	return "Conformance"
}
