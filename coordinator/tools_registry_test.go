package coordinator_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/coordinator/eventlog"
	"github.com/toolgate/toolgate/coordinator/tool"
)

type nameInput struct {
	Name string `json:"name" validate:"required" jsonschema:"a name"`
}

func nameTool(name string, _ tool.Env) *tool.Tool {
	return coordinator.NewTool(tool.Spec[nameInput]{Name: name, Description: "Say the name it serves.",
		Run: func(_ context.Context, c *tool.Call, in *nameInput) (tool.Result, error) {
			return tool.TextResult(c.Name + ":" + in.Name), nil
		}})
}

func TestParseMCPName(t *testing.T) {
	cases := []struct {
		in, server, tool string
		ok               bool
	}{
		{"mcp__github__create_issue", "github", "create_issue", true},
		{"mcp__my-server__get__nested", "my-server", "get__nested", true},
		{"mcp__a_b__c", "a_b", "c", true},
		{"mcp__github", "", "", false},
		{"mcp__github__", "", "", false},
		{"mcp____tool", "", "", false},
		{"mcp__x____", "", "", false},
		{"xmcp__a__b", "", "", false},
		{"read_file", "", "", false},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			server, tool, ok := coordinator.ParseMCPName(c.in)
			if server != c.server || tool != c.tool || ok != c.ok {
				t.Errorf("got %q %q %v, want %q %q %v", server, tool, ok, c.server, c.tool, c.ok)
			}
		})
	}
}

func TestRegistry(t *testing.T) {
	t.Run("one implementation serves several names", func(t *testing.T) {
		c := coordinator.New(coordinator.Options{Tools: []tool.Registration{
			{Name: "alpha", Factory: nameTool}, {Name: "beta", Factory: nameTool},
			{Name: "focus_chain", Factory: func(string, tool.Env) *tool.Tool { return nil }},
		}})
		defer c.Close()
		s, _ := c.Sessions().Get(api.DefaultSessionID)
		for _, name := range []string{"alpha", "beta"} {
			res, rec := c.Execute(context.Background(), s, "", use1(name, "t-"+name, `{"name":"x"}`))
			if rec.Status != api.StatusSucceeded || res.Content[0].Text != name+":x" {
				t.Errorf("%s: %s %q", name, rec.Status, res.Content[0].Text)
			}
		}
		res, rec := c.Execute(context.Background(), s, "", use1("focus_chain", "t-fc", `{}`))
		if !res.IsError || rec.Error == nil || rec.Error.Code != api.ToolCodeNotOwned || !strings.Contains(res.Content[0].Text, "handled by the client") {
			t.Errorf("focus_chain: %+v %+v", rec, res)
		}
		var names []string
		for _, tool := range c.Tools(nil) {
			names = append(names, tool.Name)
		}
		if strings.Join(names, ",") != "alpha,beta" {
			t.Errorf("listed tools = %v, want alpha,beta (focus_chain is not served)", names)
		}
	})
	t.Run("schema comes from the input type", func(t *testing.T) {
		tool := nameTool("alpha", tool.Env{})
		var schema struct {
			Required   []string                   `json:"required"`
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(tool.InputSchema, &schema); err != nil {
			t.Fatal(err)
		}
		if len(schema.Required) != 1 || schema.Required[0] != "name" || !strings.Contains(string(schema.Properties["name"]), "a name") {
			t.Errorf("schema = %s", tool.InputSchema)
		}
	})
	for _, c := range []struct {
		name string
		regs []tool.Registration
	}{
		{"duplicate name", []tool.Registration{{Name: "alpha", Factory: nameTool}, {Name: "alpha", Factory: nameTool}}},
		{"factory builds another name", []tool.Registration{{Name: "alpha", Factory: func(string, tool.Env) *tool.Tool { return nameTool("beta", tool.Env{}) }}}},
	} {
		t.Run("panics on "+c.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			coordinator.New(coordinator.Options{Tools: c.regs})
		})
	}
}

func use1(name, id, input string) api.ToolUse {
	return api.ToolUse{Type: api.TypeToolUse, ID: id, Name: name, Input: json.RawMessage(input)}
}

func TestEventLogBounds(t *testing.T) {
	l := eventlog.New("s", 4, 0)
	for i := range 10 {
		l.Append(api.Event{Type: "x", ToolUseID: string(rune('a' + i))})
	}
	b := l.Read(0, 100)
	evs, missed := b.Events, b.Missed
	if len(evs) != 4 || missed != 6 || evs[0].ID != 7 || evs[3].ID != 10 || evs[3].SessionID != "s" {
		t.Errorf("got %d events from id %d, missed %d", len(evs), evs[0].ID, missed)
	}
	b = l.Read(8, 1)
	evs, missed = b.Events, b.Missed
	if len(evs) != 1 || evs[0].ID != 9 || missed != 0 {
		t.Errorf("read after 8: %+v missed %d", evs, missed)
	}
	for _, c := range []struct{ in, want int64 }{{-5, 0}, {3, 3}, {1 << 62, 10}} {
		if got := l.Cursor(c.in); got != c.want {
			t.Errorf("Cursor(%d) = %d, want %d", c.in, got, c.want)
		}
	}
}
