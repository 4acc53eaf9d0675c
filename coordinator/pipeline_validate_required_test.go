package coordinator

import (
	"context"
	"reflect"
	"testing"

	"github.com/toolgate/toolgate/coordinator/tool"
)

// shapeOf is the inputShape a tool with input type In has.
func shapeOf[In any]() inputShape {
	t := tool.NewTool(tool.Spec[In]{Name: "t", Run: func(context.Context, *tool.Call, *In) (tool.Result, error) { return tool.Result{}, nil }})
	var shape inputShape
	shape.required, shape.requiredOnly = t.RequiredFields()
	return shape
}

// Input types in the shapes tools declare, for TestRequiredSetAgrees.
type (
	reqPath struct {
		Path      string `json:"path" validate:"required"`
		StartLine int    `json:"start_line,omitempty"`
		EndLine   int    `json:"end_line,omitempty"`
	}
	reqScalars struct {
		Name  string  `json:"name" validate:"required"`
		Kind  string  `json:"kind" validate:"required"`
		Count int     `json:"count"`
		Ratio float64 `json:"ratio"`
		On    bool    `json:"on"`
		Tags  []string
		Meta  map[string]string
	}
	reqItem struct {
		Name string `json:"name" validate:"required"`
	}
	// The validator leaves a slice of structs without dive alone.
	reqItems struct {
		Path  string    `json:"path" validate:"required"`
		Items []reqItem `json:"items"`
	}
	reqDive struct {
		Items []reqItem `json:"items" validate:"required,dive"`
	}
	reqNested struct {
		Path string  `json:"path" validate:"required"`
		Item reqItem `json:"item"`
	}
	reqPointer struct {
		Path string   `json:"path" validate:"required"`
		Item *reqItem `json:"item"`
	}
	reqMin struct {
		Path string `json:"path" validate:"required"`
		N    int    `json:"n" validate:"omitempty,min=1"`
	}
	reqUnexported struct {
		Path string `json:"path" validate:"required"`
		//lint:ignore U1000 unset on purpose: the validator passes over an unexported field
		cache string `validate:"required"`
	}
)

// TestRequiredSetAgrees: whenever requiredSet passes an input, the
// validator finds nothing wrong with it; and it passes the usual valid
// inputs of the shapes it is for, so the validator is really spared.
func TestRequiredSetAgrees(t *testing.T) {
	v := NewValidator()
	cases := []struct {
		name  string
		in    any
		shape inputShape
		fast  bool // requiredSet must pass it
	}{
		{"path set", &reqPath{Path: "a.go"}, shapeOf[reqPath](), true},
		{"path set with lines", &reqPath{Path: "a.go", StartLine: -3}, shapeOf[reqPath](), true},
		{"path missing", &reqPath{StartLine: 2}, shapeOf[reqPath](), false},
		{"scalars set", &reqScalars{Name: "x", Kind: "y", Count: -1}, shapeOf[reqScalars](), true},
		{"scalars unset", &reqScalars{Name: "x", Kind: "y"}, shapeOf[reqScalars](), true},
		{"second required missing", &reqScalars{Name: "x", Count: 1, Ratio: 0.5, On: true}, shapeOf[reqScalars](), false},
		{"first required missing", &reqScalars{Kind: "y"}, shapeOf[reqScalars](), false},
		{"items without dive", &reqItems{Path: "p", Items: []reqItem{{}}}, shapeOf[reqItems](), true},
		{"items with dive", &reqDive{Items: []reqItem{{}}}, shapeOf[reqDive](), false},
		{"nested struct", &reqNested{Path: "p"}, shapeOf[reqNested](), false},
		{"pointer", &reqPointer{Path: "p", Item: &reqItem{}}, shapeOf[reqPointer](), false},
		{"other tags", &reqMin{Path: "p"}, shapeOf[reqMin](), false},
		{"unexported", &reqUnexported{Path: "p"}, shapeOf[reqUnexported](), true},
		{"not a pointer", reqPath{Path: "p"}, shapeOf[reqPath](), false},
		{"nil pointer", (*reqPath)(nil), shapeOf[reqPath](), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := requiredSet(tc.in, tc.shape.required, tc.shape.requiredOnly)
			if got != tc.fast {
				t.Errorf("requiredSet: got %v, want %v", got, tc.fast)
			}
			if got && reflect.ValueOf(tc.in).Kind() == reflect.Pointer {
				if err := v.Struct(tc.in); err != nil {
					t.Errorf("requiredSet passed an input the validator refuses: %v", err)
				}
			}
		})
	}
}
