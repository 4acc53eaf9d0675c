package coordinator

import (
	"fmt"
	"reflect"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// dialectSet indexes the dialects by name and their tools by name.
type dialectSet map[api.Dialect]map[string]*tool.DialectTool

func newDialectSet(ds []tool.Dialect) dialectSet {
	set := dialectSet{}
	for _, d := range ds {
		// Cline's vocabulary is the registry's own: its dialect declares
		// no tools of its own, and no other dialect may take its name.
		if d.Name == "" || d.Name == api.DialectCline && len(d.Tools) > 0 || set[d.Name] != nil {
			panic(fmt.Sprintf("coordinator: dialect %q is reserved or registered twice", d.Name))
		}
		tools := map[string]*tool.DialectTool{}
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

// plainResults reports whether calls in dialect d ask handlers for plain
// results (Dialect.PlainResults).
func (c *Coordinator) plainResults(d api.Dialect) bool {
	for _, x := range c.dialectList {
		if x.Name == d {
			return x.PlainResults
		}
	}
	return false
}

// independentCalls reports whether a failed call in dialect d leaves its
// siblings running (Dialect.IndependentCalls).
func (c *Coordinator) independentCalls(d api.Dialect) bool {
	for _, x := range c.dialectList {
		if x.Name == d {
			return x.IndependentCalls
		}
	}
	return false
}

// searchAll reports whether calls in dialect d search as a ripgrep glob
// selects files (Dialect.SearchAll). A session without a dialect is
// Cline's.
func (c *Coordinator) searchAll(d api.Dialect) bool {
	if d == "" {
		d = api.DialectCline
	}
	for _, x := range c.dialectList {
		if x.Name == d {
			return x.SearchAll
		}
	}
	return false
}

// dialectTools lists a dialect's tools in the order it declared them.
func (c *Coordinator) dialectTools(d api.Dialect) []*tool.DialectTool {
	if x := c.dialect(d); x != nil {
		return x.Tools
	}
	return nil
}

// dialect is the dialect of that name, nil for cline (which has no
// Dialect value) and unknown names.
func (c *Coordinator) dialect(d api.Dialect) *tool.Dialect {
	for i := range c.dialectList {
		if c.dialectList[i].Name == d {
			return &c.dialectList[i]
		}
	}
	return nil
}
