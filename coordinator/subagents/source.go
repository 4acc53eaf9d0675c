package subagents

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"

	"github.com/fsnotify/fsnotify"
)

type subagentIn struct {
	Prompt string `json:"prompt" validate:"required" jsonschema:"the task for the subagent"`
}

// Source is the dynamic source of agent tools (the coordinator's
// DynamicSource) and their runner. It watches the
// agent directory: every change there bumps a generation, and a tool
// built under an older generation is stale, so the registry builds it
// again from the file, or drops it when the file is gone. A tool is
// stamped with the generation read before its file was, so a change
// that lands while the file is being read still makes it stale. Where
// the directory cannot be watched (it does not exist, inotify limits),
// each lookup compares the file's size and mtime instead.
type Source struct {
	host   Host
	cfg    Config
	dir    string
	tokens tokens
	fsw    *fsnotify.Watcher // nil: compare size and mtime per lookup
	gen    atomic.Uint64
	wg     sync.WaitGroup

	mu       sync.Mutex
	agents   map[*tool.Tool]builtAgent
	names    []string // Names' answer under namesGen
	namesGen uint64
	closed   bool
}

// builtAgent is the agent a tool runs and the generation it was built in.
type builtAgent struct {
	agent *agentFile
	gen   uint64
}

// New returns the source of the agent tools of cfg.Dir, run through host,
// and starts watching that directory; nil when no directory is
// configured. Close stops the watch.
func New(host Host, cfg Config) *Source {
	if cfg.Dir == "" {
		return nil
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Commands == nil {
		cfg.Commands = &tool.CommandConfig{}
	}
	src := &Source{host: host, cfg: cfg, dir: cfg.Dir, agents: map[*tool.Tool]builtAgent{}}
	src.watch()
	return src
}

func (src *Source) watch() {
	if _, err := os.Stat(src.dir); err != nil {
		src.cfg.Logger.Warn("subagent directory", "err", err)
		return
	}
	fsw, err := fsnotify.NewWatcher()
	if err == nil {
		if err = fsw.Add(src.dir); err != nil {
			_ = fsw.Close()
		}
	}
	if err != nil {
		src.cfg.Logger.Warn("subagent directory not watched; agent files are checked on each lookup", "dir", src.dir, "err", err)
		return
	}
	src.fsw = fsw
	src.gen.Store(1) // generation 0 means "not built under a watch"
	src.wg.Add(1)
	go src.run()
}

// run bumps the generation on every change in the directory. An error is
// most likely a queue overflow, where events were lost: bump it too.
func (src *Source) run() {
	defer src.wg.Done()
	for {
		select {
		case ev, ok := <-src.fsw.Events:
			if !ok {
				return
			}
			if ev.Has(fsnotify.Create) || ev.Has(fsnotify.Write) || ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
				src.gen.Add(1)
			}
		case _, ok := <-src.fsw.Errors:
			if !ok {
				return
			}
			src.gen.Add(1)
		}
	}
}

// Close stops the watch and waits for its goroutine.
func (src *Source) Close() {
	src.mu.Lock()
	done := src.closed
	src.closed = true
	src.mu.Unlock()
	if !done && src.fsw != nil {
		_ = src.fsw.Close()
		src.wg.Wait()
	}
}

// Tool creates use_subagent_<name> from the agent file naming it.
func (src *Source) Tool(name string, _ tool.Env) *tool.Tool {
	gen := src.gen.Load()
	if name == UseSubagents {
		t := src.newUseSubagents()
		src.remember(t, genericAgent, gen)
		return t
	}
	if agent, ok := strings.CutPrefix(name, tool.SubagentPrefix); !ok || agent == "" {
		return nil
	}
	a, err := findAgent(src.dir, name)
	if err != nil {
		return nil
	}
	t := tool.NewTool(tool.Spec[subagentIn]{
		Name:        name,
		Description: fmt.Sprintf("Run the %s subagent on a task: %s", a.Name, a.Description),
		Run: func(ctx context.Context, call *tool.Call, in *subagentIn) (tool.Result, error) {
			return src.runSubagent(ctx, call, a, in.Prompt)
		},
	})
	src.remember(t, a, gen)
	return t
}

// remember records which agent a tool runs, for Valid.
func (src *Source) remember(t *tool.Tool, a *agentFile, gen uint64) {
	src.mu.Lock()
	defer src.mu.Unlock()
	src.agents[t] = builtAgent{agent: a, gen: gen}
}

// Valid reports whether a cached tool is still current: nothing changed
// in the watched directory since it was built (or, unwatched, its file is
// unchanged). A stale tool is forgotten; the registry builds it again or
// finds its file gone.
func (src *Source) Valid(t *tool.Tool) bool {
	src.mu.Lock()
	b, ok := src.agents[t]
	src.mu.Unlock()
	if !ok {
		return false
	}
	switch {
	case b.agent == genericAgent:
		return true
	case src.fsw != nil && b.gen == src.gen.Load():
		return true
	case src.fsw == nil && b.agent.unchanged():
		return true
	}
	src.mu.Lock()
	delete(src.agents, t)
	src.mu.Unlock()
	return false
}

// Names lists every tool the agent directory offers now: use_subagents
// and use_subagent_<name> for each readable agent file. Under a watch
// the answer is kept until the directory changes.
func (src *Source) Names() []string {
	gen := src.gen.Load()
	if src.fsw != nil {
		src.mu.Lock()
		names, ok := src.names, src.namesGen == gen
		src.mu.Unlock()
		if ok {
			return names
		}
	}
	names := append([]string{UseSubagents}, loadAgentTable(src.dir).names...)
	sort.Strings(names)
	if src.fsw != nil {
		src.mu.Lock()
		src.names, src.namesGen = names, gen
		src.mu.Unlock()
	}
	return names
}

// Errors names each agent file that gives no tool, and why: it cannot be
// read or parsed, or its agent's name is already another file's.
func (src *Source) Errors() []api.ToolLoadError {
	return loadAgentTable(src.dir).errors
}
