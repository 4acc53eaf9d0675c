package handlers

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestSetMCPCallIsDecoding: the coordinator fills use_mcp_tool's input of
// an mcp__<server>__<tool> call through SetMCPCall instead of a JSON
// decoder (coordinator/mcp_tools.go decodeMCPCall), so SetMCPCall must
// make what decoding the same call gives.
func TestSetMCPCallIsDecoding(t *testing.T) {
	for _, raw := range []string{
		`{"arguments":{},"server_name":"s","tool_name":"t"}`,
		`{"arguments":{"text":"x1","n":-12,"ok":true,"none":null},"server_name":"test","tool_name":"echo"}`,
	} {
		var decoded UseMCPToolInput
		if err := json.Unmarshal([]byte(raw), &decoded); err != nil {
			t.Fatal(err)
		}
		var parts struct {
			Arguments  map[string]any `json:"arguments"`
			ServerName string         `json:"server_name"`
			ToolName   string         `json:"tool_name"`
		}
		if err := json.Unmarshal([]byte(raw), &parts); err != nil {
			t.Fatal(err)
		}
		var set UseMCPToolInput
		set.SetMCPCall(parts.ServerName, parts.ToolName, parts.Arguments)
		if !reflect.DeepEqual(set, decoded) {
			t.Errorf("%s: SetMCPCall gives %#v, decoding %#v", raw, set, decoded)
		}
	}
}
