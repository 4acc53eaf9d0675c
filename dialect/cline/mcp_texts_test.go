package cline

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// TestClineTruncateMatchesNode checks truncate against Cline's
// truncateContent and formatBytes (shared/content-limits.ts, v4.0.12) run
// under node, on texts built the same way on both sides.
func TestClineTruncateMatchesNode(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is needed as the oracle (test.sh installs nodejs)")
	}
	cases := []struct {
		unit  string
		count int
	}{{"a", 10}, {"a", 400 * 1024}, {"a", 400*1024 + 1}, {"ab", 300 * 1024}, {"€", 200 * 1024}, {"€x", 250 * 1024}, {"a", 3 << 20}}
	const js = `const [unit, count] = JSON.parse(process.argv[1]);
		const max = 400 * 1024;
		const fmt = b => b < 1024 ? b + " B" : b < 1024 * 1024 ? (b / 1024).toFixed(1) + " KB" : (b / (1024 * 1024)).toFixed(1) + " MB";
		const s = unit.repeat(count);
		const out = s.length <= max ? s : s.slice(0, max) + "\n\n---\n\n[FILE TRUNCATED: This content is " + fmt(s.length) +
			" but only the first " + fmt(max) + " is shown (" + fmt(s.length - max) +
			" truncated). Use search_files to find specific patterns, or execute_command with grep/head/tail for targeted reading.]";
		process.stdout.write(out);`
	for _, c := range cases {
		arg, _ := json.Marshal([]any{c.unit, c.count})
		want, err := exec.CommandContext(t.Context(), node, "-e", js, string(arg)).Output()
		if err != nil {
			t.Fatalf("node: %v", err)
		}
		if got := truncate(strings.Repeat(c.unit, c.count)); got != string(want) {
			t.Errorf("%q x %d: got %d bytes ending %q, node %d bytes ending %q", c.unit, c.count,
				len(got), got[max(0, len(got)-200):], len(want), want[max(0, len(want)-200):])
		}
	}
}
