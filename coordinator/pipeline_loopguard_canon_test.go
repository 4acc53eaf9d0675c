package coordinator

import (
	"encoding/json"
	"testing"

	"github.com/toolgate/toolgate/coordinator/tool"
)

// TestCanonicalFlatIsTheRoundTrip: where canonicalFlat takes an input as
// it is, decoding it into an any and encoding it again gives the same
// bytes, so the loop guard's key is the one the round trip makes; inputs
// the round trip would change are refused.
func TestCanonicalFlatIsTheRoundTrip(t *testing.T) {
	taken := []string{
		`{}`, `{"path":"one_kb.txt"}`, `{"end_line":20,"path":"a b/c.go","start_line":1}`,
		`{"a":true,"b":false,"c":null,"d":-12,"e":0,"f":"~!@#$%^*()_+={}[]|:;',.?/"}`,
		`{"n":123456789012345}`,
	}
	refused := []string{
		``, `[]`, `{"a":1,}`, `{,"a":1}`, `{ "a":1}`, `{"a": 1}`, `{"b":1,"a":2}`, `{"a":1,"a":2}`,
		`{"a":"<b>"}`, `{"a":"x&y"}`, `{"a":"\u0041"}`, `{"a":"line\n"}`, `{"a":"é"}`, `{"a":1.0}`, `{"a":1e2}`,
		`{"a":-0}`, `{"a":01}`, `{"a":1234567890123456}`, `{"a":[1]}`, `{"a":{"b":1}}`, `{"a":tru}`, `{"a":truex}`,
		`{"a":"x"y}`, `{"a"}`, `{"a":}`, `{"a":"unterminated}`,
	}
	for _, in := range taken {
		if !canonicalFlat([]byte(in)) {
			t.Errorf("%s refused", in)
			continue
		}
		var v any
		if err := json.Unmarshal([]byte(in), &v); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if out, _ := json.Marshal(v); string(out) != in {
			t.Errorf("%s taken as it is, but the round trip gives %s", in, out)
		}
	}
	for _, in := range refused {
		if canonicalFlat([]byte(in)) {
			t.Errorf("%s taken as it is", in)
		}
	}
}

// TestCanonicalMCPIsTheRoundTrip: a use_mcp_tool input canonicalMCP takes
// as it is (the form normalizeName gives mcp__<server>__<tool> calls with
// flat arguments) is its own loop key: the round trip, which also parses
// string arguments and puts in missing ones, gives the same bytes. Inputs
// it would change are refused.
func TestCanonicalMCPIsTheRoundTrip(t *testing.T) {
	taken := []string{
		`{"arguments":{}}`,
		`{"arguments":{},"server_name":"s","tool_name":"t"}`,
		`{"arguments":{"text":"x1"},"server_name":"test","tool_name":"echo"}`,
		`{"arguments":{"a":"}","b":"{","c":null,"d":-12},"server_name":"s}","tool_name":"{t"}`,
		`{"arguments":{"server_name":"inner"},"server_name":"outer","tool_name":"t"}`,
	}
	refused := []string{
		``, `{}`, `{"arguments":null}`, `{"arguments":"{}"}`, `{"arguments":{}`, `{"arguments":{}}}`,
		`{"server_name":"s","tool_name":"t"}`, `{"arguments":{"a":{"b":1}}}`, `{"arguments":{"a":[1]}}`,
		`{"arguments":{"b":1,"a":2}}`, `{"arguments":{"a":"x\"}"},"z":1}`, `{"arguments":{"a":"x\"}","z":1}}`,
		`{"arguments":{},"arguments":{}}`, `{"arguments":{},"a":1}`, `{"arguments":{},"tool_name":"t","server_name":"s"}`,
		`{"arguments":{},"server_name":"s",}`, `{"arguments":{} ,"server_name":"s"}`, `{"arguments":{},"server_name":"<s>"}`,
		`{"arguments":{"a":1.5}}`, `{"arguments":{"a":"é"}}`, `{"arguments":{},"server_name":{"a":1}}`,
		`{"arguments":{}"server_name":"s"}`, `{"arguments":{"a":1}x}`,
	}
	for _, in := range taken {
		if !canonicalMCP([]byte(in)) {
			t.Errorf("%s refused", in)
			continue
		}
		if key := loopKeyRoundTrip(tool.UseMCPTool, json.RawMessage(in)); key != tool.UseMCPTool+"\x00"+in {
			t.Errorf("%s taken as it is, but the round trip gives %q", in, key)
		}
	}
	for _, in := range refused {
		if canonicalMCP([]byte(in)) {
			t.Errorf("%s taken as it is", in)
		}
	}
}
