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
		// The default dialect's vocabulary is the registry's own: it
		// declares no tools of its own, and no other dialect may take its
		// name.
		if d.Name == "" || d.Name == api.DefaultDialect && len(d.Tools) > 0 || set[d.Name] != nil {
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

// dialectOf names the dialects (other than the default) that have a tool name,
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

// texts are the wording of the registry tools' results in dialect d's
// sessions: the dialect's own, else the default dialect's, else, on a
// coordinator without dialects, tool.PlainTexts.
func (c *Coordinator) texts(d api.Dialect) tool.Texts {
	for _, n := range []api.Dialect{d, api.DefaultDialect} {
		if x := c.dialect(n); x != nil && x.Texts != nil {
			return x.Texts
		}
	}
	return tool.PlainTexts{}
}

// ownTexts are the texts of dialect d itself (the default dialect's for
// ""), nil when it has none.
func (c *Coordinator) ownTexts(d api.Dialect) tool.Texts {
	if x := c.sessionDialect(d); x != nil {
		return x.Texts
	}
	return nil
}

// sessionDialect is the dialect of a session speaking d (the default
// dialect for ""), nil when the coordinator has no such dialect.
func (c *Coordinator) sessionDialect(d api.Dialect) *tool.Dialect {
	if d == "" {
		d = api.DefaultDialect
	}
	return c.dialect(d)
}

// speaksRegistry reports whether the calls of a session speaking d name
// the registry's tools: a dialect without tools of its own, or the default
// dialect (which has none) on a coordinator built without it.
func (c *Coordinator) speaksRegistry(d api.Dialect) bool {
	if x := c.sessionDialect(d); x != nil {
		return len(x.Tools) == 0
	}
	return d == "" || d == api.DefaultDialect
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
// selects files (Dialect.SearchAll). A session without a dialect speaks
// the default one.
func (c *Coordinator) searchAll(d api.Dialect) bool {
	if d == "" {
		d = api.DefaultDialect
	}
	for _, x := range c.dialectList {
		if x.Name == d {
			return x.SearchAll
		}
	}
	return false
}

// commandEnv are the variables dialect d's client sets for its commands
// (Dialect.CommandEnv), nil for none.
func (c *Coordinator) commandEnv(d api.Dialect) map[string]string {
	if x := c.sessionDialect(d); x != nil {
		return x.CommandEnv
	}
	return nil
}

// dialectTools lists a dialect's tools in the order it declared them.
func (c *Coordinator) dialectTools(d api.Dialect) []*tool.DialectTool {
	if x := c.dialect(d); x != nil {
		return x.Tools
	}
	return nil
}

// dialect is the dialect of that name, nil for a name the coordinator was
// not given.
func (c *Coordinator) dialect(d api.Dialect) *tool.Dialect {
	for i := range c.dialectList {
		if c.dialectList[i].Name == d {
			return &c.dialectList[i]
		}
	}
	return nil
}
