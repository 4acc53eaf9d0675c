package coordinator

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/internal/benchpair"
)

// TestResultJSONSize: the counted size of a result is the size
// encoding/json gives it, for every kind of text it escapes.
func TestResultJSONSize(t *testing.T) {
	texts := []string{"", "plain", "1 | line\n2 | \"quoted\" \\ tab\t\r\b\f", "<a href=\"x\">&amp;</a>", "\x00\x01\x1f\x7f",
		"héllo wörld ✓ 🎉", "bad \xff\xfe utf8 \xc3", "sep \u2028 and \u2029", strings.Repeat("0123456789abcde\n", 64)}
	var cases []api.ToolResult
	for i, text := range texts {
		cases = append(cases, api.NewToolResult(fmt.Sprintf("toolu_%d<&>", i), text, i%2 == 0))
	}
	cases = append(cases,
		api.ToolResult{Type: api.TypeToolResult, ToolUseID: "toolu_nil"},
		api.ToolResult{Type: api.TypeToolResult, ToolUseID: "toolu_empty", Content: []api.Content{}},
		api.ToolResult{Type: api.TypeToolResult, ToolUseID: "toolu_many", Content: []api.Content{api.TextContent(texts[2]), api.TextContent(""),
			{Type: api.TypeImage, Source: &api.ImageSource{Type: "base64", MediaType: "image/png", Data: "iVBOR+/="}}, api.TextContent(texts[5])}})
	for _, res := range cases {
		want, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		if got := resultJSONSize(&res); got != len(want) {
			t.Errorf("resultJSONSize = %d, json.Marshal %d bytes: %s", got, len(want), want)
		}
	}
}

// BenchmarkResultJSONSize: counting a 1 KB read's result against
// encoding it to take its length.
//
//	go test -run '^$' -bench ResultJSONSize ./coordinator/
func BenchmarkResultJSONSize(b *testing.B) {
	res := api.NewToolResult("toolu_1", strings.Repeat("17 | 0123456789abcde\n", 64), false)
	n := 0
	benchpair.Run(b, func() { n += resultJSONSize(&res) }, func() {
		out, _ := json.Marshal(res)
		n += len(out)
	})
}
