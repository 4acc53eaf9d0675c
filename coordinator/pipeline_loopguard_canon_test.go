package coordinator

import (
	"encoding/json"
	"testing"
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
