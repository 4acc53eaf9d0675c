package subagents

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/text/collate"
	"golang.org/x/text/language"

	"github.com/toolgate/toolgate/api"
)

// agentTable is what an agent directory offers: each usable agent under
// its tool name, and each file that gives no tool with its reason.
type agentTable struct {
	byTool map[string]*agentFile
	names  []string // the tool names, sorted
	errors []api.ToolLoadError
}

// loadAgentTable reads every agent file in dir (in file name order) and
// names the tools as Cline's AgentConfigLoader does
// (core/task/tools/subagent/AgentConfigLoader.ts, v4.0.12,
// rebuildDynamicToolMappings): agents are keyed by their name trimmed and
// in lower case; in the order of those keys (localeCompare), each gets
// buildSubagentToolName of its name, and a name an earlier agent already
// has gets "_2", "_3", ... (the base cut so the whole stays within 64
// characters). Two files whose agents have the same key cannot both be
// reached by name: Cline keeps one of them, whichever it read last; here
// the first by file name is kept and the other is reported.
func loadAgentTable(dir string) agentTable {
	t := agentTable{byTool: map[string]*agentFile{}, errors: []api.ToolLoadError{}}
	entries, _ := os.ReadDir(dir)
	byKey := map[string]*agentFile{}
	owner := map[string]string{}
	var keys []string
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".md") {
			continue
		}
		a, err := readAgentFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.errors = append(t.errors, api.ToolLoadError{Source: e.Name(),
				Error: strings.TrimPrefix(err.Error(), filepath.Join(dir, e.Name())+": ")})
			continue
		}
		key := strings.ToLower(strings.TrimSpace(a.Name))
		if first, ok := owner[key]; ok {
			t.errors = append(t.errors, api.ToolLoadError{Source: e.Name(),
				Error: fmt.Sprintf("agent %q has the same name as the agent of %s", a.Name, first)})
			continue
		}
		owner[key], byKey[key] = e.Name(), a
		keys = append(keys, key)
	}
	coll := collate.New(language.Und)
	slices.SortStableFunc(keys, coll.CompareString)
	for _, key := range keys {
		a := byKey[key]
		base := ToolName(a.Name)
		name := base
		for n := 2; t.byTool[name] != nil; n++ {
			suffix := "_" + strconv.Itoa(n)
			name = base[:min(len(base), max(1, subagentToolNameMax-len(suffix)))] + suffix
		}
		a.ToolName = name
		t.byTool[name] = a
		t.names = append(t.names, name)
	}
	slices.Sort(t.names)
	return t
}
