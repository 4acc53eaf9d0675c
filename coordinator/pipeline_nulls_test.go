package coordinator

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestNullItemNamesTheItem(t *testing.T) {
	type edit struct {
		Old  string `json:"old"`
		List []int  `json:"list"`
	}
	type common struct {
		Tags []string `json:"tags"`
	}
	type input struct {
		common
		Path      *string         `json:"path"`
		Ignore    []string        `json:"ignore"`
		Edits     []edit          `json:"edits"`
		Grid      [][]string      `json:"grid"`
		Maybe     []*string       `json:"maybe"`
		Arguments any             `json:"arguments"`
		Outputs   json.RawMessage `json:"outputs"`
		Content   string          `json:"content"`
	}
	cases := []struct {
		raw, want string
		found     bool
	}{
		{`{"path":"a","ignore":["x",null]}`, "ignore[1]", true},
		{`{"edits":[{"old":"a"},{"old":"b","list":[1,null]}]}`, "edits[1].list[1]", true},
		{`{"grid":[["a"],[null]]}`, "grid[1][0]", true},
		{`{"tags":[null]}`, "tags[0]", true},       // a field of an embedded struct
		{`{"path":null,"ignore":null}`, "", false}, // null parameters read as left out
		{`{"content":"null","ignore":["null"]}`, "", false},
		{`{"maybe":[null]}`, "", false}, // a pointer item may be nil
		// Free JSON is the tool's data, nulls included.
		{`{"arguments":{"list":[null]},"outputs":[{"x":[null]}]}`, "", false},
		{`{"arguments":[null,{"a":[null]}],"ignore":[null]}`, "ignore[0]", true},
	}
	for _, c := range cases {
		got, found := nullItem([]byte(c.raw), reflect.TypeFor[*input]())
		if got != c.want || found != c.found {
			t.Errorf("nullItem(%s) = %q, %v; want %q, %v", c.raw, got, found, c.want, c.found)
		}
	}
}
