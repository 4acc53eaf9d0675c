package coordinator

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/api"
)

// TestStoredResultEncodedWhenRead: a result the store would keep whole is
// handed over unencoded (the session holds the same texts), and encodes
// to what boundResult makes of it, even if the caller's slice changes
// later; a result the store cuts is encoded at once; the result of a
// call that changed nothing is not kept, only its size.
func TestStoredResultEncodedWhenRead(t *testing.T) {
	r, s := &recorder{}, &Session{ID: "ses_1"}
	whole := strings.Repeat("x", storeTextHead+storeTextTail)
	small := api.ToolResult{Type: api.TypeToolResult, ToolUseID: "t1",
		Content: []api.Content{api.TextContent("a \"quoted\" line\n"), api.TextContent(whole)}}
	want, wantBytes := boundResult(small)
	ran := &callEntry{audit: audit{effects: true}}
	c := r.row(s, ran, &small, false)
	if c.Result != nil || c.ResultLater == nil {
		t.Fatalf("a small text result was encoded at once (%d bytes)", len(c.Result))
	}
	small.Content[0].Text = "changed after recording"
	got := c.Resolved()
	if !bytes.Equal(got.Result, want) || got.ResultBytes != wantBytes || got.ResultLater != nil {
		t.Errorf("resolved to %s (%d bytes), want %s (%d)", got.Result, got.ResultBytes, want, wantBytes)
	}

	for name, res := range map[string]api.ToolResult{
		"a text longer than kept": {Type: api.TypeToolResult, ToolUseID: "t2", Content: []api.Content{api.TextContent(whole + "y")}},
		"an image": {Type: api.TypeToolResult, ToolUseID: "t3", Content: []api.Content{{Type: api.TypeImage,
			Source: &api.ImageSource{Type: "base64", MediaType: "image/png", Data: "AAAA"}}}},
	} {
		want, wantBytes := boundResult(res)
		c := r.row(s, ran, &res, false)
		if c.ResultLater != nil || !bytes.Equal(c.Result, want) || c.ResultBytes != wantBytes {
			t.Errorf("%s: stored %s (%d bytes), later=%v; want %s (%d) at once", name, c.Result, c.ResultBytes, c.ResultLater != nil, want, wantBytes)
		}
	}

	input := json.RawMessage(`{"path":"a.txt"}`)
	c = r.row(s, &callEntry{audit: audit{input: input}}, &small, false)
	if c.Fill == nil || c.InputSHA256 != "" || c.ResultBytes != 0 {
		t.Errorf("a read's record worked out its hash %q and size %d on the call's path (fill=%v)", c.InputSHA256, c.ResultBytes, c.Fill != nil)
	}
	_, wantBytes = boundResult(small)
	_, wantHash, _ := boundInput(input, false)
	small.Content[0].Text = "changed after recording, to another length"
	got = c.Resolved()
	if got.Result != nil || got.ResultLater != nil || got.ResultBytes != wantBytes || got.InputSHA256 != wantHash ||
		string(got.Input) != string(input) || got.InputBytes != len(input) || got.Fill != nil {
		t.Errorf("a read's record keeps %s (later=%v, %d bytes, input %s of %d bytes, hash %s), want no result and %d bytes, the input and its hash %s",
			got.Result, got.ResultLater != nil, got.ResultBytes, got.Input, got.InputBytes, got.InputSHA256, wantBytes, wantHash)
	}
}

// TestReadFillEveryShape: a read's record works out the same hash and
// size whatever its result's blocks (resultFill keeps a lone block
// inside its func, more in a copy), as encoding/json counts them, and
// keeps the blocks as they were when recorded.
func TestReadFillEveryShape(t *testing.T) {
	r, s := &recorder{}, &Session{ID: "ses_1"}
	input := json.RawMessage(`{"path":"a.txt"}`)
	_, wantHash, _ := boundInput(input, false)
	image := api.Content{Type: api.TypeImage, Source: &api.ImageSource{Type: "base64", MediaType: "image/png", Data: "AAAA"}}
	for name, content := range map[string][]api.Content{
		"no block":    {},
		"nil blocks":  nil,
		"one text":    {api.TextContent("1 | a <b> & \"c\"\n")},
		"one image":   {image},
		"two blocks":  {api.TextContent("first"), image},
		"three texts": {api.TextContent("a"), api.TextContent("b\u2028"), api.TextContent("c")},
	} {
		for _, isError := range []bool{false, true} {
			res := api.ToolResult{Type: api.TypeToolResult, ToolUseID: "toolu_1", Content: slices.Clone(content), IsError: isError}
			full, _ := json.Marshal(res)
			c := r.row(s, &callEntry{audit: audit{input: input}}, &res, false)
			for i := range res.Content {
				res.Content[i] = api.TextContent("changed after recording, to another length")
			}
			res.IsError, res.ToolUseID = !isError, "toolu_other"
			got := c.Resolved()
			if got.ResultBytes != len(full) || got.InputSHA256 != wantHash {
				t.Errorf("%s (is_error %v): %d bytes, hash %s; want %d (%s), %s", name, isError, got.ResultBytes, got.InputSHA256, len(full), full, wantHash)
			}
		}
	}
}
