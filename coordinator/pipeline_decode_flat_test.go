package coordinator

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/toolgate/toolgate/coordinator/tool"
)

// flatIn is an input type of every kind a flat input may hold.
type flatIn struct {
	Path    string            `json:"path"`
	Line    int               `json:"line,omitempty"`
	Ratio   *float64          `json:"ratio"`
	On      bool              `json:"on"`
	Tags    []string          `json:"tags"`
	Env     map[string]string `json:"env"`
	Any     any               `json:"any"`
	Raw     json.RawMessage   `json:"raw"`
	Skipped string            `json:"-"`
	NoTag   string
	//lint:ignore U1000 an unexported field is never decoded: its key is unknown
	hidden string
}

// The flat path decodes every input exactly as json.Decoder with
// DisallowUnknownFields does: the same value, the same error.
func TestDecodeStrictSameAsDecoder(t *testing.T) {
	tl := NewTool(tool.Spec[flatIn]{Name: "flat", Run: func(context.Context, *tool.Call, *flatIn) (tool.Result, error) {
		return tool.Result{}, nil
	}})
	keys, flat := tl.FlatKeys()
	if !flat {
		t.Fatalf("flatIn is not flat; keys %v", keys)
	}
	for _, raw := range decodeInputs {
		t.Run(raw, func(t *testing.T) { sameAsDecoder(t, keys, flat, raw) })
	}
}

// FuzzDecodeStrict holds the flat path to the decoder on any input:
//
//	go test -run '^$' -fuzz FuzzDecodeStrict -fuzztime 30s ./coordinator/
func FuzzDecodeStrict(f *testing.F) {
	keys, flat := tool.NewTool(tool.Spec[flatIn]{Name: "flat", Run: func(context.Context, *tool.Call, *flatIn) (tool.Result, error) {
		return tool.Result{}, nil
	}}).FlatKeys()
	for _, raw := range decodeInputs {
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw string) { sameAsDecoder(t, keys, flat, raw) })
}

// sameAsDecoder decodes raw both ways and compares values and errors.
func sameAsDecoder(t *testing.T, keys []string, flat bool, raw string) {
	t.Helper()
	var fast, plain flatIn
	errFast := decodeStrict(&fast, json.RawMessage(raw), keys, flat)
	errPlain := decodeWithDecoder(&plain, json.RawMessage(raw))
	if fmt.Sprint(errFast) != fmt.Sprint(errPlain) {
		t.Fatalf("%s: error %v, the decoder's %v", raw, errFast, errPlain)
	}
	if !reflect.DeepEqual(fast, plain) {
		t.Fatalf("%s: decoded %+v, the decoder %+v", raw, fast, plain)
	}
}

// decodeInputs are inputs of every shape the key scan meets.
var decodeInputs = []string{
	`{}`, ` { } `, `{"path":"a"}`, `{"PATH":"a","Line":3}`, `{"path":"a","line":"3"}`, `{"path":1}`,
	`{"path":"a","unknown":1}`, `{"pathx":"a"}`, `{"path":"a","-":"x"}`, `{"Skipped":"x"}`, `{"hidden":"x"}`,
	`{"notag":"x","NoTag":"y"}`, `{"tags":["a","b"],"env":{"K":"v","x":{"y":1}}}`, `{"any":{"deep":[1,{"z":null}]}}`,
	`{"raw":{"a":[1,2,{"b":"}"}]},"path":"p"}`, `{"p\u0061th":"a"}`, `{"päth":"a"}`, `{"path":"a\"b\\"}`,
	`{"ratio":null,"on":true}`, `{"ratio":1.5e3}`, `{"tags":null}`, `{"path":"a",}`, `{"path" "a"}`, `{"path":tru}`,
	`{"path":"a"} `, `{"line":1.5}`, `{"on":"true"}`, `{"path":"a","path":"b"}`, `{"env":{"a":1}}`,
}

// Only inputs whose keys are all the type's take the flat path.
func TestKnownKeysOnly(t *testing.T) {
	keys := []string{"path", "start_line", "end_line"}
	for raw, want := range map[string]bool{
		`{"path":"a.go"}`: true,
		`{"end_line":40,"path":"a.go","start_line":1}`: true,
		`{"Path":"a.go"}`:           true,
		`{"path":"a.go","limit":3}`: false,
		`{"path":{"x":1}}`:          true, // Unmarshal refuses the value; the decoder words it
		`{"p\u0061th":"a"}`:         false,
		`[]`:                        false,
		`{"path":"a"`:               false,
	} {
		if got := knownKeysOnly([]byte(raw), keys); got != want {
			t.Errorf("knownKeysOnly(%s) = %v, want %v", raw, got, want)
		}
	}
}
