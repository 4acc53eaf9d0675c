package coordinator

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
)

// decodeTestMCPIn has the shape of handlers.UseMCPToolInput (the
// coordinator's tests do not import handlers; handlers'
// TestSetMCPCallIsDecoding holds the real input to the same contract).
type decodeTestMCPIn struct {
	ServerName string `json:"server_name" validate:"required"`
	ToolName   string `json:"tool_name" validate:"required"`
	Arguments  any    `json:"arguments,omitempty"`
}

func (in *decodeTestMCPIn) SetMCPCall(server, tool string, args map[string]any) {
	in.ServerName, in.ToolName, in.Arguments = server, tool, args
}

// decodeTestTools are use_mcp_tool with that input and a read_file.
func decodeTestTools() []Registration {
	return []Registration{
		{Name: UseMCPTool, Factory: func(name string, env ToolEnv) *Tool {
			return NewTool(Spec[decodeTestMCPIn]{Name: name, Run: func(context.Context, *Call, *decodeTestMCPIn) (Result, error) {
				return TextResult("mcp"), nil
			}})
		}},
		{Name: "read_file", Factory: func(name string, env ToolEnv) *Tool {
			return NewTool(Spec[fileIn]{Name: name, Run: func(context.Context, *Call, *fileIn) (Result, error) {
				return TextResult("read"), nil
			}})
		}},
	}
}

// TestDecodeMCPCallAsDecodeInput: an mcp__<server>__<tool> call's input
// in the form normalizeName gives it is decoded without a JSON decoder
// into what DecodeInput makes of it, refusals included; every other
// input is left to DecodeInput.
func TestDecodeMCPCallAsDecodeInput(t *testing.T) {
	ws, err := OpenWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	c := New(Options{Config: DefaultConfig(), Workspace: ws, Tools: decodeTestTools(), MCP: policyHub()})
	t.Cleanup(func() { c.Close(); ws.Close() })
	tool, _ := c.registry.lookup(UseMCPTool)
	if tool == nil {
		t.Fatal("no use_mcp_tool")
	}
	taken := []string{
		`{"arguments":{},"server_name":"s","tool_name":"t"}`,
		`{"arguments":{"text":"x1"},"server_name":"test","tool_name":"echo"}`,
		`{"arguments":{"a":"}{","b":true,"c":false,"d":null,"e":-123456789012345,"f":0},"server_name":"s}","tool_name":"t{"}`,
		`{"arguments":{},"server_name":"","tool_name":"t"}`,
		`{"arguments":{},"server_name":"s","tool_name":""}`,
	}
	left := []string{
		`{"arguments":{}}`, `{"arguments":{},"server_name":"s"}`, `{"arguments":{},"tool_name":"t"}`,
		`{"arguments":{},"server_name":"s","tool_name":"t","z":1}`, `{"arguments":{"a":{"b":1}},"server_name":"s","tool_name":"t"}`,
		`{"arguments":"{}","server_name":"s","tool_name":"t"}`, `{"server_name":"s","tool_name":"t"}`,
		`{"arguments":{},"server_name":"s\u0041","tool_name":"t"}`, `{"arguments":{"a":1.5},"server_name":"s","tool_name":"t"}`,
	}
	for _, in := range taken {
		got, ok, gotErr := decodeMCPCall(tool, c.validate, json.RawMessage(in))
		if !ok {
			t.Errorf("%s left to DecodeInput", in)
			continue
		}
		want, wantErr := DecodeInput(tool, c.validate, json.RawMessage(in))
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Errorf("%s: error %v, DecodeInput's %v", in, gotErr, wantErr)
		}
		if wantErr == nil && !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %#v, DecodeInput gives %#v", in, got, want)
		}
	}
	for _, in := range left {
		if _, ok, _ := decodeMCPCall(tool, c.validate, json.RawMessage(in)); ok {
			t.Errorf("%s decoded without DecodeInput", in)
		}
	}
	// Other tools' inputs are DecodeInput's.
	read, _ := c.registry.lookup("read_file")
	if _, ok, _ := decodeMCPCall(read, c.validate, json.RawMessage(`{"arguments":{},"server_name":"s","tool_name":"t"}`)); ok {
		t.Error("a read_file input decoded as an MCP call")
	}
}
