package subagents

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// localeSorted is keys sorted by JavaScript's localeCompare, under node:
// the order of Cline's AgentConfigLoader.rebuildDynamicToolMappings.
func localeSorted(t *testing.T, keys []string) []string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is needed as the oracle for localeCompare (test.sh installs nodejs)")
	}
	in, _ := json.Marshal(keys)
	cmd := exec.CommandContext(t.Context(), node, "-e",
		`let s = ""; process.stdin.on("data", d => s += d).on("end", () => process.stdout.write(JSON.stringify(JSON.parse(s).sort((a, b) => a.localeCompare(b)))))`)
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var sorted []string
	if err := json.Unmarshal(out, &sorted); err != nil {
		t.Fatal(err)
	}
	return sorted
}

// TestClashingAgentNamesGetSuffixes follows Cline's AgentConfigLoader.ts
// (v4.0.12, rebuildDynamicToolMappings): agents whose names give the same
// tool name are taken in localeCompare order of their lower-cased names;
// the first keeps the name, the next get _2, _3, ..., cut to stay within 64
// characters. Two agents with the same name (in any case) are one key in
// Cline; the second file is reported.
func TestClashingAgentNamesGetSuffixes(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("x", 51) // use_subagent_ + 51 = 64 characters
	agents := map[string]string{
		"1.md": "Code Reviewer", "2.md": "code-reviewer", "3.md": "code_reviewer", "4.md": "Code   Reviewer!",
		"5.md": long, "6.md": long + "!", "7.md": "  CODE reviewer ",
	}
	for file, name := range agents {
		text := "---\nname: \"" + name + "\"\ndescription: d\n---\nPrompt.\n"
		if err := os.WriteFile(filepath.Join(dir, file), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	table := loadAgentTable(dir)

	want := map[string]string{} // agent name -> tool name
	suffixes := []string{"", "_2", "_3", "_4"}
	for i, key := range localeSorted(t, []string{"code reviewer", "code-reviewer", "code_reviewer", "code   reviewer!"}) {
		for _, name := range agents {
			if strings.ToLower(name) == key {
				want[name] = "use_subagent_code_reviewer" + suffixes[i]
			}
		}
	}
	want[long] = "use_subagent_" + long
	want[long+"!"] = ("use_subagent_" + long)[:62] + "_2"

	if len(table.byTool) != len(want) {
		t.Errorf("tools = %d, want %d", len(table.byTool), len(want))
	}
	for tool, a := range table.byTool {
		if want[a.Name] != tool {
			t.Errorf("agent %q has tool %s, want %s", a.Name, tool, want[a.Name])
		}
		if len(tool) > 64 {
			t.Errorf("tool name %s is longer than 64 characters", tool)
		}
	}
	if len(table.errors) != 1 || table.errors[0].Source != "7.md" || !strings.Contains(table.errors[0].Error, "1.md") {
		t.Errorf("errors = %+v, want 7.md reported as the same agent as 1.md", table.errors)
	}
}
