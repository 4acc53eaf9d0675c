package coordinator

import (
	"fmt"
	"reflect"
	"sort"
	"sync"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// DynamicSource creates tools on first use for names outside the static
// table (use_subagent_<name>). It returns nil for names it does not know.
type DynamicSource interface {
	Tool(name string, env tool.Env) *tool.Tool
	// Valid reports whether a cached tool is still current (its config
	// file unchanged); stale tools are created again.
	Valid(t *tool.Tool) bool
}

// DynamicLister is a DynamicSource that can name every tool it offers
// now, so that tool lists show them before their first call.
type DynamicLister interface {
	Names() []string
}

// Registry maps tool names to tools: a static table filled once at
// start-up and a dynamic table filled lazily at run time.
type Registry struct {
	env    tool.Env
	static map[string]*tool.Tool
	notOwn map[string]bool
	// internal names the tools only dialects reach.
	internal map[string]bool
	order    []string
	sources  []DynamicSource

	mu      sync.Mutex
	dynamic map[string]*tool.Tool
}

// NewRegistry runs every registration's factory. It panics on a duplicate
// name, a factory that returns a tool under another name or an input with
// a validate tag that has no sentence: those are programmer errors to
// catch at start-up.
func NewRegistry(env tool.Env, regs []tool.Registration, sources ...DynamicSource) *Registry {
	r := &Registry{env: env, static: map[string]*tool.Tool{}, notOwn: map[string]bool{}, internal: map[string]bool{}, sources: sources, dynamic: map[string]*tool.Tool{}}
	for _, reg := range regs {
		if _, dup := r.static[reg.Name]; dup || r.notOwn[reg.Name] {
			panic(fmt.Sprintf("coordinator: tool %q registered twice", reg.Name))
		}
		t := reg.Factory(reg.Name, env)
		if t == nil {
			r.notOwn[reg.Name] = true
			continue
		}
		if t.Name != reg.Name {
			panic(fmt.Sprintf("coordinator: factory for %q built tool %q", reg.Name, t.Name))
		}
		checkRuleSentences(t.Name, t.InputType(), map[reflect.Type]bool{})
		r.static[reg.Name] = t
		r.order = append(r.order, reg.Name)
		if reg.Internal {
			r.internal[reg.Name] = true
		}
	}
	return r
}

// lookup finds the tool for a name a model used: static table, then
// dynamic table. owned is false for names the coordinator knows but does
// not serve. Internal tools are not found by their own name.
func (r *Registry) lookup(name string) (t *tool.Tool, owned bool) {
	if r.internal[name] {
		return nil, true
	}
	return r.lookupTarget(name)
}

// lookupTarget finds the tool a dialect mapped a call onto, internal
// tools included.
func (r *Registry) lookupTarget(name string) (t *tool.Tool, owned bool) {
	if t, ok := r.static[name]; ok {
		return t, true
	}
	if r.notOwn[name] {
		return nil, false
	}
	return r.lookupDynamic(name), true
}

func (r *Registry) lookupDynamic(name string) *tool.Tool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if t, ok := r.dynamic[name]; ok {
		for _, s := range r.sources {
			if s.Valid(t) {
				return t
			}
		}
		delete(r.dynamic, name)
	}
	for _, s := range r.sources {
		if t := s.Tool(name, r.env); t != nil {
			checkRuleSentences(t.Name, t.InputType(), map[reflect.Type]bool{})
			r.dynamic[name] = t
			return t
		}
	}
	return nil
}

// Tools lists the static tools in registration order, then the dynamic
// ones by name: those cached and those a DynamicLister names, each
// checked (and built, or dropped) as a lookup would.
func (r *Registry) Tools() []*tool.Tool {
	out := make([]*tool.Tool, 0, len(r.order))
	for _, n := range r.order {
		if !r.internal[n] {
			out = append(out, r.static[n])
		}
	}
	r.mu.Lock()
	names := make([]string, 0, len(r.dynamic))
	for n := range r.dynamic {
		names = append(names, n)
	}
	r.mu.Unlock()
	for _, s := range r.sources {
		if l, ok := s.(DynamicLister); ok {
			names = append(names, l.Names()...)
		}
	}
	sort.Strings(names)
	for i, n := range names {
		if i > 0 && names[i-1] == n || r.static[n] != nil || r.notOwn[n] {
			continue
		}
		if t := r.lookupDynamic(n); t != nil {
			out = append(out, t)
		}
	}
	return out
}

// has reports whether a name is served, internal tools included.
func (r *Registry) has(name string) bool {
	t, _ := r.lookupTarget(name)
	return t != nil
}

// dynamicTools lists the tools of the dynamic sources (subagents), which
// every dialect's pool holds.
func (r *Registry) dynamicTools() []*tool.Tool {
	var out []*tool.Tool
	for _, t := range r.Tools() {
		if r.static[t.Name] == nil {
			out = append(out, t)
		}
	}
	return out
}

// DynamicErrors is a DynamicSource that can say which of its sources
// give no tool, and why.
type DynamicErrors interface {
	Errors() []api.ToolLoadError
}

// Errors lists what the dynamic sources could not turn into tools.
func (r *Registry) Errors() []api.ToolLoadError {
	out := []api.ToolLoadError{}
	for _, s := range r.sources {
		if e, ok := s.(DynamicErrors); ok {
			out = append(out, e.Errors()...)
		}
	}
	return out
}

// ClientSide lists, sorted, the names the coordinator knows but leaves to
// the client.
func (r *Registry) ClientSide() []string {
	out := make([]string, 0, len(r.notOwn))
	for n := range r.notOwn {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Names lists the static tool names, for metrics that start at zero.
func (r *Registry) Names() []string { return append([]string(nil), r.order...) }
