package coordinator

import (
	"fmt"
	"reflect"

	"github.com/toolgate/toolgate/api"
)

// dialectSet indexes the dialects by name and their tools by name.
type dialectSet map[api.Dialect]map[string]*DialectTool

func newDialectSet(ds []Dialect) dialectSet {
	set := dialectSet{}
	for _, d := range ds {
		if d.Name == "" || d.Name == api.DialectCline || set[d.Name] != nil {
			panic(fmt.Sprintf("coordinator: dialect %q is reserved or registered twice", d.Name))
		}
		tools := map[string]*DialectTool{}
		for _, t := range d.Tools {
			checkRuleSentences(t.Name, t.InputType(), map[reflect.Type]bool{})
			if tools[t.Name] != nil {
				panic(fmt.Sprintf("coordinator: dialect %s: tool %q registered twice", d.Name, t.Name))
			}
			tools[t.Name] = t
		}
		set[d.Name] = tools
	}
	return set
}

// dialectOf names the dialects (other than cline) that have a tool name,
// for the hint of an unknown_tool answer.
func (ds dialectSet) dialectsOf(name string) []api.Dialect {
	var out []api.Dialect
	for _, d := range api.Dialects() {
		if ds[d][name] != nil {
			out = append(out, d)
		}
	}
	return out
}

// dialectTools lists a dialect's tools in the order it declared them.
func (c *Coordinator) dialectTools(d api.Dialect) []*DialectTool {
	if x := c.dialect(d); x != nil {
		return x.Tools
	}
	return nil
}

// dialect is the dialect of that name, nil for cline (which has no
// Dialect value) and unknown names.
func (c *Coordinator) dialect(d api.Dialect) *Dialect {
	for i := range c.dialectList {
		if c.dialectList[i].Name == d {
			return &c.dialectList[i]
		}
	}
	return nil
}
