package tool

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
	"time"
)

// A type is flat only when refusing unknown fields can refuse nothing
// below its top level.
func TestFlatKeys(t *testing.T) {
	type item struct {
		Name string `json:"name"`
	}
	type Embedded struct {
		X string `json:"x"`
	}
	cases := []struct {
		name string
		typ  reflect.Type
		keys []string
		flat bool
	}{
		{"scalars, maps, raw JSON", reflect.TypeFor[struct {
			Path  string            `json:"path"`
			N     *int              `json:"n,omitempty"`
			Env   map[string]string `json:"env"`
			Raw   json.RawMessage   `json:"raw"`
			Any   any               `json:"any"`
			Skip  string            `json:"-"`
			NoTag bool
		}](), []string{"path", "n", "env", "raw", "any", "NoTag"}, true},
		{"a struct field", reflect.TypeFor[struct {
			Item item `json:"item"`
		}](), nil, false},
		{"a slice of structs", reflect.TypeFor[struct {
			Items []item `json:"items"`
		}](), nil, false},
		{"a map of structs", reflect.TypeFor[struct {
			Items map[string]*item `json:"items"`
		}](), nil, false},
		{"an embedded struct", reflect.TypeFor[struct {
			Embedded
		}](), nil, false},
		{"a type that decodes itself", reflect.TypeFor[struct {
			At time.Time `json:"at"`
		}](), nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			keys, flat := flatKeys(c.typ)
			if flat != c.flat || !slices.Equal(keys, c.keys) {
				t.Errorf("got %v %v, want %v %v", keys, flat, c.keys, c.flat)
			}
		})
	}
}
