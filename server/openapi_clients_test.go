package server

import (
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/api"
)

// TestOpenAPIForGeneratedClients holds the parts of openapi.yaml that
// generated clients (openapi-typescript, see test.sh) depend on.
func TestOpenAPIForGeneratedClients(t *testing.T) {
	doc, _ := loadSpec(t)
	t.Run("every operation has a unique operationId", func(t *testing.T) {
		seen := map[string]string{}
		for path, item := range doc.Paths.Map() {
			for method, op := range item.Operations() {
				where := method + " " + path
				if op.OperationID == "" {
					t.Errorf("%s has no operationId", where)
				} else if other, dup := seen[op.OperationID]; dup {
					t.Errorf("%s and %s share operationId %s", where, other, op.OperationID)
				}
				seen[op.OperationID] = where
			}
		}
	})
	t.Run("tool error codes are api.AllToolCodes", func(t *testing.T) {
		var got []string
		for _, v := range doc.Components.Schemas["ToolErrorCode"].Value.Enum {
			got = append(got, v.(string))
		}
		want := slices.Clone(api.AllToolCodes)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("ToolErrorCode enum = %v,\nwant api.AllToolCodes %v", got, want)
		}
	})
	t.Run("request error codes are the status table's", func(t *testing.T) {
		var got []string
		for _, v := range doc.Components.Schemas["Error"].Value.Properties["code"].Value.Enum {
			got = append(got, v.(string))
		}
		want := slices.Sorted(maps.Keys(statusOf))
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("Error.code enum = %v,\nwant the codes statusOf maps %v", got, want)
		}
	})
	t.Run("tool inputs are free-form objects", func(t *testing.T) {
		in := doc.Components.Schemas["ToolUse"].Value.Properties["input"].Value
		if in.AdditionalProperties.Has == nil || !*in.AdditionalProperties.Has {
			t.Error("ToolUse.input does not take any properties; generated types would make it Record<string, never>")
		}
	})
	t.Run("content blocks are a oneOf on type", func(t *testing.T) {
		for name, want := range map[string][]string{"Content": {"text", "image", "document"}, "ContentBlock": {"text", "image", "tool_use", "tool_result"}} {
			s := doc.Components.Schemas[name].Value
			if s.Discriminator == nil || s.Discriminator.PropertyName != "type" || len(s.OneOf) != len(want) {
				t.Errorf("%s is not a oneOf with a type discriminator", name)
				continue
			}
			for _, k := range want {
				if _, ok := s.Discriminator.Mapping[k]; !ok {
					t.Errorf("%s's discriminator does not map %s", name, k)
				}
			}
		}
	})
	t.Run("the events route references Event", func(t *testing.T) {
		op := doc.Paths.Find("/v1/sessions/{sid}/events").Get
		s := op.Responses.Status(200).Value.Content["text/event-stream"].Schema.Value
		if s.Items == nil || s.Items.Ref != "#/components/schemas/Event" {
			t.Error("the events route's stream does not reference the Event schema")
		}
	})
}

// TestToolCodesDeclaredOnce: handlers and the coordinator name tool error
// codes only through api's constants, so the contract's enum (checked
// against api.AllToolCodes above) covers every code a call can end with.
// A code spelled as a string where it is used, or declared as a constant
// of its own outside api, fails here.
func TestToolCodesDeclaredOnce(t *testing.T) {
	literal := regexp.MustCompile(`Errorf\("[a-z_]+",|Code: +"[a-z_]+"|failure\([^,]+, "[a-z_]+"|^\s*\w*Code\w*\s*(string\s*)?=\s*"`)
	for _, dir := range []string{"../handlers", "../coordinator"} {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for i, line := range strings.Split(string(data), "\n") {
				if literal.MatchString(line) {
					t.Errorf("%s:%d spells a tool error code as a string; use an api.ToolCode constant: %s", path, i+1, strings.TrimSpace(line))
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
