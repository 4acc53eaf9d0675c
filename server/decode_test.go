package server

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/toolgate/toolgate/api"
)

// decodeBodies are request bodies for TestDecodeFastAgrees and the seed of
// FuzzDecodeFastAgrees: the usual ones and the edges where two JSON
// decoders could part: invalid UTF-8, lone surrogates, keys in another
// case, a repeated key, wrong types, unknown fields, trailing data,
// malformed values.
var decodeBodies = []string{
	`{"type":"tool_use","id":"toolu_1","name":"read_file","input":{"path":"a.txt"}}`,
	`{"type":"tool_use","id":"a","name":"n","input":{ "path" : "x" , "n": [1, 2.5e3, null, true] }}`,
	"{\"type\":\"tool_use\",\"id\":\"a\xff\xfe\",\"name\":\"n\",\"input\":{}}",
	`{"type":"tool_use","id":"\ud800\udc00\ud800","name":"n","input":{}}`,
	`{"TYPE":"tool_use","Id":"a","name":"n","input":null}`,
	`{"type":"tool_use","id":"a","name":"n","id":"b"}`,
	`{"type":"tool_use","id":"a","name":"n","partial":1}`,
	`{"type":"tool_use","id":"a","name":"n","bogus":1}`,
	`{"type":"tool_use","id":"a","name":"n","input":01}`,
	"  {\"type\":\"tool_use\"}\n\t ",
	`{"type":"tool_use"} x`, `{"type":"tool_use"}{}`, `{"type":"tool_use"} 1`,
	`[]`, `null`, ``, ` `, `{`, `"x"`, `{"input":[1,2,}`, `{"id":"\u00e9\t\"\\\/"}`,
	"{\"id\":\"a\tb\"}", `{"id":1e400}`, `{"id":"a",}`, `{"id" "a"}`,
	`{"role":"assistant","content":[{"type":"text","text":"hi"},{"type":"tool_use","id":"t","name":"n","input":{}}]}`,
	`{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":"tool_use","usage":{"input_tokens":1}}`,
	`{"role":"assistant","content":{}}`, `{"role":"assistant","content":[1,"x",null]}`,
	`{"mode":"plan","permissions":{"allow":["read_file"],"deny":[],"ask":null},"dialect":"cline"}`,
	`{"mode":"plan","permissions":{"allow":"read_file"}}`, `{"permissions":{"bogus":[]}}`,
	`{"decision":"approve","remember":true,"feedback":"ok"}`, `{"decision":"approve","remember":"yes"}`,
	`{"type":"tool_use","id":"a","name":"n","input":{},"cache_control":{"type":"ephemeral"}}`,
	`{"type":"text","text":"x","citations":[{"a":1}]}`, `{"type":"thinking","thinking":"…","signature":"s"}`,
}

// decodeTargets are the request types the routes decode bodies into.
var decodeTargets = []func() any{
	func() any { return new(api.ToolUse) },
	func() any { return new(apiMessage) },
	func() any { return new(api.CreateSessionRequest) },
	func() any { return new(api.DecisionRequest) },
}

// TestDecodeFastAgrees: whatever body decodeFast takes, encoding/json
// takes too (one value, no unknown field, nothing after it) and decodes
// to the same value; a body it refuses is left to encoding/json, so a
// refusal alone cannot change an answer. The same for unmarshalFast and
// json.Unmarshal.
func TestDecodeFastAgrees(t *testing.T) {
	for _, body := range decodeBodies {
		checkDecodeAgrees(t, []byte(body))
	}
}

func FuzzDecodeFastAgrees(f *testing.F) {
	for _, body := range decodeBodies {
		f.Add([]byte(body))
	}
	f.Fuzz(checkDecodeAgrees)
}

func checkDecodeAgrees(t *testing.T, body []byte) {
	t.Helper()
	for _, target := range decodeTargets {
		fast, slow := target(), target()
		if unmarshalFast(bytes.Clone(body), fast) {
			if err := json.Unmarshal(body, slow); err != nil {
				t.Errorf("%T from %q: unmarshalFast took it, json.Unmarshal says %v", fast, body, err)
			} else if !reflect.DeepEqual(fast, slow) {
				t.Errorf("%T from %q, unmarshalFast:\n got %+v\nwant %+v", fast, body, fast, slow)
			}
		}
	}
	for _, target := range decodeTargets {
		fast, slow := target(), target()
		if !decodeFast(bytes.Clone(body), fast) {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.DisallowUnknownFields()
		if err := dec.Decode(slow); err != nil {
			t.Errorf("%T from %q: decodeFast took it, encoding/json says %v", fast, body, err)
			continue
		}
		if err := endOfBody(dec); err != nil {
			t.Errorf("%T from %q: decodeFast took it, encoding/json finds more after the value", fast, body)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Errorf("%T from %q:\n got %+v\nwant %+v", fast, body, fast, slow)
		}
	}
}

// TestDecodeClearsWhatFastLeft: a body decodeFast refuses half-way is
// decoded again from a clean value, so what it had set does not survive.
func TestDecodeClearsWhatFastLeft(t *testing.T) {
	var use api.ToolUse
	if decodeFast([]byte(`{"input":{},"id":01}`), &use) {
		t.Fatal("decodeFast took a malformed number")
	}
	if use.Input == nil {
		t.Skip("decodeFast left nothing behind: nothing to clear")
	}
	dec := slowDecoder([]byte(`{"id":"b"}`), &use)
	if err := dec.Decode(&use); err != nil {
		t.Fatal(err)
	}
	if use.Input != nil {
		t.Errorf("input = %s, want it cleared", use.Input)
	}
}
