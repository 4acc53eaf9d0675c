package tool

import (
	"encoding/json"
	"strings"
	"testing"
)

// ruleInput holds every validate rule a tool input may use, each on the
// kinds it applies to.
type ruleInput struct {
	Name    string            `json:"name" validate:"required,max=8"`
	Code    string            `json:"code,omitempty" validate:"omitempty,len=3"`
	Word    string            `json:"word,omitempty" validate:"omitempty,gt=1,lt=9"`
	Mode    string            `json:"mode" validate:"required,oneof=fast slow"`
	Level   int               `json:"level,omitempty" validate:"omitempty,oneof=1 2"`
	Count   int               `json:"count,omitempty" validate:"gte=0,lte=10"`
	Ratio   float64           `json:"ratio,omitempty" validate:"gt=0,lt=1"`
	Link    string            `json:"link,omitempty" validate:"omitempty,url"`
	Plain   string            `json:"plain,omitempty" validate:"excludesall=<>]"`
	Tags    []string          `json:"tags" validate:"required,min=1,max=3,dive,min=2"`
	Env     map[string]string `json:"env,omitempty" validate:"omitempty,max=4"`
	Flag    *bool             `json:"flag" validate:"required"`
	Items   []ruleItem        `json:"items,omitempty" validate:"dive"`
	Free    string            `json:"free"` // no omitempty, no rule: optional
	Through int               `json:"through,omitempty" validate:"omitempty,gtefield=Count"`
}

type ruleItem struct {
	Text string `json:"text" validate:"required"`
	Note string `json:"note"`
}

// TestSchemaCarriesEveryRule: each validate rule becomes its JSON Schema
// keyword, required comes from the validate tags alone, and every optional
// parameter may be null.
func TestSchemaCarriesEveryRule(t *testing.T) {
	_, raw := inputSchema[ruleInput]("test")
	var s struct {
		Required   []string                              `json:"required"`
		Properties map[string]map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(s.Required, ","); got != "name,mode,tags,flag" {
		t.Errorf("required = %s, want name,mode,tags,flag (free has no rule)", got)
	}
	want := map[string]string{
		"name.minLength":         "1",
		"name.maxLength":         "8",
		"code.minLength":         "3",
		"code.maxLength":         "3",
		"word.minLength":         "2",
		"word.maxLength":         "8",
		"mode.enum":              `["fast","slow"]`,
		"level.enum":             "[1,2,null]",
		"count.minimum":          "0",
		"count.maximum":          "10",
		"ratio.exclusiveMinimum": "0",
		"ratio.exclusiveMaximum": "1",
		"link.format":            `"uri"`,
		"plain.pattern":          `"^[^\u003c\u003e\\]]*$"`,
		"tags.minItems":          "1",
		"tags.maxItems":          "3",
		"tags.type":              `"array"`,
		"env.maxProperties":      "4",
		"flag.type":              `"boolean"`,
		// An optional parameter may be null (read as left out); a
		// required one may not.
		"name.type":  `"string"`,
		"free.type":  `["null","string"]`,
		"count.type": `["null","integer"]`,
		"env.type":   `["null","object"]`,
		"items.type": `["null","array"]`,
	}
	for key, w := range want {
		prop, kw, _ := strings.Cut(key, ".")
		if got := string(s.Properties[prop][kw]); got != w {
			t.Errorf("%s = %s, want %s", key, got, w)
		}
	}
	if _, ok := s.Properties["mode"]["minLength"]; ok {
		t.Error("mode has an enum; minLength 1 is redundant")
	}
	if got := string(s.Properties["through"]["minimum"]); got != "" {
		t.Errorf("through: a cross-field rule has no keyword, got minimum %s", got)
	}
	var items struct {
		MinLength int `json:"minLength"`
	}
	_ = json.Unmarshal(s.Properties["tags"]["items"], &items)
	if items.MinLength != 2 {
		t.Errorf("tags items = %s, want minLength 2 (the rule after dive)", s.Properties["tags"]["items"])
	}
	var nested struct {
		Items struct {
			Required []string `json:"required"`
		} `json:"items"`
	}
	_ = json.Unmarshal(mustJSON(t, s.Properties["items"]), &nested)
	if got := strings.Join(nested.Items.Required, ","); got != "text" {
		t.Errorf("items[].required = %q, want text", got)
	}
}

// TestRequiredZeroValueIsRefused: validate required on a bool or number
// refuses false or 0, which no schema can say: registration panics.
func TestRequiredZeroValueIsRefused(t *testing.T) {
	type bad struct {
		Approve bool `json:"approve" validate:"required"`
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "use a pointer") {
			t.Errorf("recover() = %v, want a panic asking for a pointer", r)
		}
	}()
	inputSchema[bad]("test")
}

func mustJSON(t *testing.T, m map[string]json.RawMessage) []byte {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
