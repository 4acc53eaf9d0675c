package server

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/dialect/cline"
)

// runnerScript is a subagent runner that acts as a model would: it posts
// a read and a write to its child session with its scoped token, tries to
// widen its own rules, and answers with what it saw.
const runnerScript = `#!/bin/sh
prompt=$(cat)
auth="Authorization: Bearer $TOOLGATE_TOKEN"
base="$TOOLGATE_URL/v1/sessions/$TOOLGATE_SESSION"
echo "agent=$TOOLGATE_AGENT prompt=$prompt system=$TOOLGATE_SYSTEM_PROMPT"
curl -s -H "$auth" -H 'Content-Type: application/json' -X POST "$base/messages" \
  -d '{"role":"assistant","content":[{"type":"tool_use","id":"r1","name":"read_file","input":{"path":"a.txt"}},{"type":"tool_use","id":"w1","name":"write_to_file","input":{"path":"b.txt","content":"x"}}]}'
echo
curl -s -o /dev/null -w 'patch=%{http_code}\n' -H "$auth" -H 'Content-Type: application/json' -X PATCH "$base" \
  -d '{"permissions":{"allow":["write_to_file"]}}'
curl -s -o /dev/null -w 'default=%{http_code}\n' -H "$auth" "$TOOLGATE_URL/v1/sessions/default"
`

func newSubagentServer(t *testing.T) (*flowServer, string) {
	t.Helper()
	if _, err := exec.LookPath("curl"); err != nil {
		if os.Getenv("CI") == "" {
			t.Skip("curl not installed")
		}
		t.Fatal("curl not installed")
	}
	runner := filepath.Join(t.TempDir(), "runner")
	if err := os.WriteFile(runner, []byte(runnerScript), 0o755); err != nil {
		t.Fatal(err)
	}
	return newSubagentServerWith(t, coordinator.SubagentConfig{Command: runner})
}

// newSubagentServerWith starts a server whose subagents run through the
// given runner; it fills in the agent directory and toolgate's address.
func newSubagentServerWith(t *testing.T, sc coordinator.SubagentConfig) (*flowServer, string) {
	t.Helper()
	agents := t.TempDir()
	// The default dialect words the child's refusals as its parent's.
	f := newFixture(t, fixtureOptions{files: map[string]string{"a.txt": "old\n"}, tools: flowTools(),
		dialects: []tool.Dialect{cline.Dialect()}, server: Config{Token: flowToken},
		before: func(url string, _ int, c *coordinator.Config, _ *Config) {
			sc.Dir, sc.ToolgateURL = agents, url
			*c = coordinator.Config{PolicyConfig: coordinator.PolicyConfig{AllowAll: true},
				AgentConfig: coordinator.AgentConfig{Subagents: sc}}
			if filepath.IsAbs(sc.Command) {
				// The runner script lives under /tmp, which the sandbox
				// replaces: show its directory.
				c.Sandbox.Writable = []string{filepath.Dir(sc.Command)}
			}
		}})
	return &flowServer{url: f.url, dir: f.dir}, agents
}

func writeAgent(t *testing.T, dir, file, front, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, file), []byte("---\n"+front+"\n---\n"+body+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestSubagents(t *testing.T) {
	f, agents := newSubagentServer(t)
	sid := f.session(t, api.Permissions{})
	ask := func(t *testing.T, id string) api.Event {
		t.Helper()
		ch := f.sseMessage(t, sid, toolUse(id, "use_subagent_reader", map[string]any{"prompt": "look around"}))
		return next(t, ch, api.EventToolFinished)
	}
	t.Run("no agent file, no tool", func(t *testing.T) {
		if ev := ask(t, "s0"); ev.Call.Status != api.StatusUnknownTool {
			t.Fatalf("status = %s, want unknown_tool", ev.Call.Status)
		}
	})
	writeAgent(t, agents, "reader.md", "name: reader\ndescription: Reads code", "You only read.")
	t.Run("read-only agent: read allowed, write and escalation refused", func(t *testing.T) {
		ev := ask(t, "s1")
		out := texts(*ev.Result)
		for _, want := range []string{"agent=reader prompt=look around system=You only read.", `old\n`, `Denied: denied by deny rule \"write_to_file\"`, "patch=401", "default=401"} {
			if !strings.Contains(out, want) {
				t.Errorf("result lacks %q:\n%s", want, out)
			}
		}
		if _, err := os.Stat(filepath.Join(f.dir, "b.txt")); !os.IsNotExist(err) {
			t.Errorf("the subagent wrote b.txt (stat err %v)", err)
		}
	})
	writeAgent(t, agents, "reader.md", "name: reader\ndescription: Reads and writes\ntools: read_file, write_to_file", "You may write.")
	f.waitTools(t, sid, "the changed reader", description("use_subagent_reader", "Reads and writes"))
	t.Run("a changed agent file takes effect", func(t *testing.T) {
		ev := ask(t, "s2")
		if out := texts(*ev.Result); !strings.Contains(out, "system=You may write.") || !strings.Contains(out, "written") {
			t.Errorf("result after the change:\n%s", out)
		}
	})
	t.Run("use_subagents runs read-only subagents side by side", func(t *testing.T) {
		ch := f.sseMessage(t, sid, toolUse("m1", "use_subagents", map[string]any{"prompt_1": "one", "prompt_2": "two"}))
		out := texts(*next(t, ch, api.EventToolFinished).Result)
		for _, want := range []string{"<subagent_1>\nagent=subagent prompt=one", "<subagent_2>\nagent=subagent prompt=two", `deny rule \"write_to_file\"`} {
			if !strings.Contains(out, want) {
				t.Errorf("result lacks %q:\n%s", want, out)
			}
		}
	})
	if err := os.Remove(filepath.Join(agents, "reader.md")); err != nil {
		t.Fatal(err)
	}
	f.waitTools(t, sid, "no use_subagent_reader", func(tools map[string]api.ToolInfo) bool {
		_, ok := tools["use_subagent_reader"]
		return !ok
	})
	t.Run("a deleted agent file removes the tool", func(t *testing.T) {
		if ev := ask(t, "s3"); ev.Call.Status != api.StatusUnknownTool {
			t.Fatalf("status = %s, want unknown_tool", ev.Call.Status)
		}
	})
}
