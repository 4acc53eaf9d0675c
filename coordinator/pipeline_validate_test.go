package coordinator

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestNotObjectSaysWhatCame: an input that is not a JSON object is
// explained by what it is, arguments sent as text that does not parse
// above all (OpenAI's formats carry arguments as a string).
func TestNotObjectSaysWhatCame(t *testing.T) {
	cases := []struct{ raw, want string }{
		{`"{\"path\":"`, "the arguments are not valid JSON (unexpected end of JSON input): {\"path\":"},
		{`"{\"path\":\"a\"}"`, "a JSON string holding JSON"},
		{`[1]`, "must be a JSON object, got an array"},
		{`42`, "must be a JSON object, got a number"},
		{`true`, "must be a JSON object, got a boolean"},
	}
	for _, c := range cases {
		err := notObject("read_file", json.RawMessage(c.raw))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "read_file") {
			t.Errorf("notObject(%s) = %v, want it to name read_file and say %q", c.raw, err, c.want)
		}
	}
	if err := notObject("read_file", json.RawMessage(` {"path":"a"}`)); err != nil {
		t.Errorf("an object: %v", err)
	}
	long := `"` + strings.Repeat("é", 300) + `"`
	if err := notObject("t", json.RawMessage(long)); err == nil || !strings.Contains(err.Error(), "…") || !json.Valid([]byte(`"`+err.Error()+`"`)) {
		t.Errorf("a long text is not clipped on a rune boundary: %v", err)
	}
}
