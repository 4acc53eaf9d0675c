package shellcmd

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// MaxInput is the largest command line that is parsed; longer input is
// reported as KindTooLong so that a pathological line costs nothing.
const MaxInput = 128 << 10

// maxNesting bounds how deep eval, bash -c and wrappers are followed.
const maxNesting = 4

// Analysis is the result of [Analyze].
type Analysis struct {
	// Commands lists every simple command in source order, including those
	// nested in substitutions, compound commands, wrappers (the rm of
	// `sudo rm x` appears after the sudo command) and literal command strings
	// (eval, bash -c), so that a deny rule can be checked against each.
	Commands []SimpleCommand
	// Risks lists every construct that keeps the line from being
	// auto-approved; see the Kind constants.
	Risks []Risk
	// EndDir is where the line leaves the shell when every cd in it
	// succeeded, relative to where it started ("" for no change); it is
	// absolute when a cd left the start's tree, and "/?" when a cd could
	// not be resolved. A shell that keeps its directory between commands
	// (Claude Code's Bash) carries it over.
	EndDir string

	paths []string
}

// SimpleCommand is one command with its arguments.
type SimpleCommand struct {
	// Args are the unquoted argument values: 'r'm, r\m and "rm" all give rm.
	// A word that holds an expansion keeps its raw source (and a Risk says so).
	Args []string
	// Dir is the workspace-relative working directory the command runs in
	// when every preceding cd of the same list succeeded; "" is the
	// workspace root. It is absolute when a cd left the workspace, and "/?"
	// when a cd could not be resolved.
	Dir string
	// Text is the source text of the command, its redirections included.
	Text string

	dirs []string // every directory the command may run in (cds may fail)
}

// Analyze parses a bash command line and reports its simple commands and
// every risky construct in it. It never panics; a line it cannot parse
// yields a KindParseError risk.
func Analyze(command string) Analysis {
	if len(command) > maxRemembered {
		return analyze(command)
	}
	if a, ok := analyses.get(command); ok {
		return a.clone()
	}
	a := analyze(command)
	analyses.put(command, a.clone())
	return a
}

func analyze(command string) (res Analysis) {
	defer func() {
		if r := recover(); r != nil {
			res.Risks = append(res.Risks, Risk{Kind: KindParseError, Detail: fmt.Sprint("internal error: ", r)})
		}
	}()
	a := newAnalyzer()
	end := a.run(command, 0, single(""))
	res = a.result()
	res.EndDir = end.likely
	if a.unsettled {
		// A function or an alias the line defined may have moved it.
		res.EndDir = unknownDir
	}
	return res
}

// maxRemembered is the longest command line whose analysis is kept: the
// cache holds at most a few hundred KB, and long lines (heredocs,
// scripts) are seldom repeated.
const maxRemembered = 1 << 10

// analyses keeps the analyses of recent command lines: a call's command is
// analysed by the scheduler, the policy and the handler, and agents repeat
// their commands (builds, tests, git status). Parsing even `true` costs
// more than looking it up and copying the result. Speed only:
// BenchmarkAnalyzeRemembered (./internal/shellcmd/, docs/benchmarks.md).
var analyses = &analysisCache{max: 256}

// analysisCache maps command lines to their analyses, forgetting the
// oldest entries beyond max.
type analysisCache struct {
	mu    sync.Mutex
	max   int
	byCmd map[string]Analysis
	order []string // keys, oldest first
}

func (c *analysisCache) get(command string) (Analysis, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, ok := c.byCmd[command]
	return a, ok
}

func (c *analysisCache) put(command string, a Analysis) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byCmd == nil {
		c.byCmd = map[string]Analysis{}
	}
	if _, ok := c.byCmd[command]; ok {
		return
	}
	if len(c.order) >= c.max {
		delete(c.byCmd, c.order[0])
		c.order = append(c.order[:0], c.order[1:]...)
	}
	c.byCmd[command] = a
	c.order = append(c.order, command)
}

// clone copies a so that the copy shares no slice with it: callers may
// change what they get without touching what the cache keeps.
func (a Analysis) clone() Analysis {
	out := Analysis{Risks: slices.Clone(a.Risks), paths: slices.Clone(a.paths), EndDir: a.EndDir}
	if a.Commands != nil {
		out.Commands = make([]SimpleCommand, len(a.Commands))
		for i, c := range a.Commands {
			c.Args, c.dirs = slices.Clone(c.Args), slices.Clone(c.dirs)
			out.Commands[i] = c
		}
	}
	return out
}

type analyzer struct {
	risks    []Risk
	seen     map[Risk]bool
	commands []SimpleCommand
	paths    []string
	seenPath map[string]bool
	// unsettled is set once the line may have changed the shell's state
	// (a function, alias, variable or option): from then on any command
	// may be a function that cds, and a cd may follow CDPATH or
	// cdable_vars, so directories are no longer known.
	unsettled bool
}

func newAnalyzer() *analyzer {
	return &analyzer{seen: map[Risk]bool{}, seenPath: map[string]bool{}}
}

func (a *analyzer) result() Analysis {
	return Analysis{Commands: a.commands, Risks: a.risks, paths: a.paths}
}

func (a *analyzer) risk(kind, detail string) {
	if len(detail) > 120 {
		detail = detail[:117] + "..."
	}
	r := Risk{Kind: kind, Detail: detail}
	if !a.seen[r] {
		a.seen[r] = true
		a.risks = append(a.risks, r)
	}
}

// run analyses one command line; nesting counts the eval/bash -c levels
// around it and dirs are the directories it may start in.
func (a *analyzer) run(src string, nesting int, in dirState) dirState {
	if len(src) > MaxInput {
		a.risk(KindTooLong, fmt.Sprintf("%d bytes", len(src)))
		return in.union(single(unknownDir))
	}
	// mvdan splits words at a carriage return and bash does not, so the
	// commands seen here could differ from the ones bash runs: flag every
	// such character before parsing, and parse anyway so that deny rules
	// still see what the parser found.
	checkControl(src, a)
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		a.risk(KindParseError, err.Error())
		return in.union(single(unknownDir))
	}
	syntax.Walk(f, func(n syntax.Node) bool { a.classify(src, n); return true })
	w := &walker{a: a, src: src, nesting: nesting}
	return w.stmts(f.Stmts, in)
}

// checkControl flags characters on which bash and the parser may disagree or
// that hide text from a human reviewer: ASCII controls other than tab and
// newline, DEL, C1 controls, Unicode format characters (zero-width, bidi
// overrides), non-ASCII spaces and line separators, and invalid UTF-8.
func checkControl(src string, a *analyzer) {
	for i, r := range src {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(src[i:], "\uFFFD"):
			a.risk(KindControlChar, fmt.Sprintf("invalid UTF-8 at byte %d", i))
		case r == '\t' || r == '\n':
		case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f,
			unicode.Is(unicode.Cf, r), r > 0x7f && unicode.IsSpace(r):
			a.risk(KindControlChar, fmt.Sprintf("%U at byte %d", r, i))
		}
	}
}
