package orderedjson

import (
	"encoding/json"
	"math"
	"testing"
)

// TestDecodeKeepsOrder: objects keep their keys as read (a repeated key
// where it first stood, with its last value) and write back in that
// order, without HTML escapes; values come as JSON.parse gives them.
func TestDecodeKeepsOrder(t *testing.T) {
	doc, err := Decode([]byte(`{"z": 1, "a": [true, null, "<&>"], "m": {"y": 2.5, "b": {}}, "z": 3}`))
	if err != nil {
		t.Fatal(err)
	}
	o := doc.(*Object)
	if got := o.Keys(); len(got) != 3 || got[0] != "z" || got[1] != "a" || got[2] != "m" {
		t.Errorf("keys = %q, want z a m", got)
	}
	if o.Get("z") != 3.0 {
		t.Errorf("z = %#v, want 3 (the last value)", o.Get("z"))
	}
	o.Set("new", "x")
	o.Set("a", []any{})
	out, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"z":3,"a":[],"m":{"y":2.5,"b":{}},"new":"x"}`; string(out) != want {
		t.Errorf("written as %s, want %s", out, want)
	}
	// Through an encoder that does not escape HTML, as the notebook
	// handler writes (json.Marshal escapes a MarshalJSON's output again).
	v, _ := Decode([]byte(`{"s": ["<&>"]}`))
	if out, err := marshalNoEscape(v); err != nil || string(out) != `{"s":["<&>"]}` {
		t.Errorf("written as %s (%v), want <&> unescaped", out, err)
	}
}

// TestDecodeNumbers: numbers are float64; one beyond the range is
// Infinity, as in JSON.parse.
func TestDecodeNumbers(t *testing.T) {
	for in, want := range map[string]float64{"1": 1, "-0.5": -0.5, "1e400": math.Inf(1), "-1e400": math.Inf(-1), "1e-400": 0} {
		got, err := Decode([]byte(in))
		if err != nil || got != want {
			t.Errorf("Decode(%s) = %v, %v, want %v", in, got, err, want)
		}
	}
}

// TestDecodeRejects: what JSON.parse refuses is an error.
func TestDecodeRejects(t *testing.T) {
	for _, in := range []string{``, `{`, `{"a" 1}`, `[1,]`, `{} x`, `{} {}`, `1 2`} {
		if v, err := Decode([]byte(in)); err == nil {
			t.Errorf("Decode(%q) = %v, want an error", in, v)
		}
	}
}
