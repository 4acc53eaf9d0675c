package policy

import (
	"errors"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/shellcmd"
)

// Subject describes a decoded call for the rules: the workspace paths it
// touches, its command line and its web host. Paths that leave the
// workspace are left to the handler, which refuses them. The MCP server
// and tool of a use_mcp_tool call are the caller's to fill in
// (coordinator.buildSubject), since reading them takes the MCP hub's names.
func (p *Policy) Subject(t *tool.Tool, in any) (*Subject, tool.CommandLine) {
	return p.SubjectOf(t, in, nil)
}

// SubjectOf is Subject for a caller that already holds the call's paths
// (t.Paths(in)), so that a read does not list them twice; nil paths are
// listed here. Measured by coordinator's BenchmarkPolicyStage and
// handlers' BenchmarkReadPipeline.
func (p *Policy) SubjectOf(t *tool.Tool, in any, paths []string) (*Subject, tool.CommandLine) {
	one := &subjectOne{Subject: Subject{Tool: t.Name}}
	s := &one.Subject
	if u := t.URL(in); u != "" {
		s.URL = u
		if pu, err := url.Parse(u); err == nil {
			s.Host = strings.ToLower(strings.TrimSuffix(pu.Hostname(), "."))
		}
	}
	if p.workspace == nil {
		return s, tool.CommandLine{}
	}
	if paths == nil {
		paths = t.Paths(in)
	}
	for _, given := range paths {
		if rel, err := p.workspace.Rel(given); err == nil {
			var ref PathRef
			if s.Paths == nil {
				ref, s.Paths = p.refIn(rel, &one.dir), one.path[:0]
			} else {
				ref = p.Ref(rel)
			}
			if filepath.IsAbs(given) {
				ref.Given = filepath.Clean(given)
			}
			ref.Walked = t.Walks
			s.Paths = append(s.Paths, ref)
		}
	}
	var line tool.CommandLine
	if t.RunsCommands() {
		line = t.Command(in)
		p.addCommand(s, line)
		s.Names = p.commandNames
	}
	// A command's tool and its analysis both name its paths; the approval
	// preview lists each once.
	s.Paths, s.Outside = uniquePaths(s.Paths), unique(s.Outside)
	return s, line
}

// subjectOne is a Subject with room for its first path and that path's
// directory lookup: a file call's subject is one allocation, where it was
// three (BenchmarkSubjectOf).
type subjectOne struct {
	Subject
	path [1]PathRef
	dir  dirLookup
}

// unique drops later repeats, keeping the order.
func unique[T comparable](xs []T) []T {
	seen := make(map[T]bool, len(xs))
	out := xs[:0]
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// addCommand analyses a command line and records the paths its words may
// name, resolved against its working directory. Words that cannot be
// resolved inside the workspace (a home directory, outside paths, links
// leading outside) are recorded as such: the policy never approves them
// silently.
func (p *Policy) addCommand(s *Subject, line tool.CommandLine) {
	a := shellcmd.Analyze(line.Command)
	s.Command, s.Line, s.Background = &a, line.Command, line.Background
	cwd := "."
	if line.Cwd != "" {
		rel, err := p.workspace.Rel(line.Cwd)
		if err != nil {
			s.BadCwd = err
		} else {
			cwd = rel
			s.Paths = append(s.Paths, p.Ref(rel))
		}
	}
	for _, w := range a.Writes() {
		native := filepath.FromSlash(w)
		if !filepath.IsAbs(native) {
			native = filepath.Join(p.workspace.Dir, filepath.FromSlash(cwd), native)
		}
		if rel, err := p.workspace.Rel(native); err == nil {
			s.Writes = append(s.Writes, filepath.ToSlash(rel))
		}
	}
	globbed := hasRisk(&a, shellcmd.KindGlob)
	for _, arg := range a.PathArgs() {
		if strings.HasPrefix(arg, "~") {
			s.Outside = append(s.Outside, arg)
			continue
		}
		native := filepath.FromSlash(arg)
		if !filepath.IsAbs(native) {
			native = filepath.Join(p.workspace.Dir, filepath.FromSlash(cwd), native)
		}
		rel, err := p.workspace.Rel(native)
		if err != nil {
			s.Outside = append(s.Outside, arg)
			continue
		}
		if rel == "." {
			continue
		}
		if p.resolvesOutside(rel) {
			s.Outside = append(s.Outside, arg)
			continue
		}
		s.Paths = append(s.Paths, p.Ref(rel))
		if globbed && strings.ContainsAny(rel, "*?[") {
			if m, ok := p.globLeaves(rel); ok {
				s.Outside = append(s.Outside, m)
				continue
			}
			s.Paths = append(s.Paths, p.expandGlob(rel)...)
		}
	}
}

// globLeaves returns a match of a pattern word that resolves outside the
// workspace. The shell expands patterns through symlinks (link_*/secret),
// which expandGlob, confined to the workspace, does not follow out.
func (p *Policy) globLeaves(pattern string) (string, bool) {
	matches, err := filepath.Glob(filepath.Join(p.workspace.Dir, filepath.FromSlash(pattern)))
	if err != nil {
		return "", false
	}
	for i, m := range matches {
		if i == maxGlobMatches {
			break
		}
		rel, err := filepath.Rel(p.workspace.Dir, m)
		if err == nil && p.resolvesOutside(filepath.ToSlash(rel)) {
			return filepath.ToSlash(rel), true
		}
	}
	return "", false
}

// resolvesOutside reports whether a workspace path leads outside through
// a symlink (link_outside/secret, procroot/etc/shadow): a command word is
// judged where it resolves, as the file tools judge it, so such a word
// asks like an outside path.
func (p *Policy) resolvesOutside(rel string) bool {
	_, inside := p.RealPath(rel)
	return !inside
}

// maxGlobMatches bounds how many files one pattern word is expanded to.
const maxGlobMatches = 10000

// expandGlob lists the workspace files a pattern word may name. fs.Glob's
// "*" also matches names starting with ".", which bash's does not, so it
// lists a superset of what the shell would pass.
func (p *Policy) expandGlob(pattern string) []PathRef {
	matches, err := fs.Glob(p.workspace.Root.FS(), pattern)
	if err != nil {
		return nil
	}
	var out []PathRef
	for i, m := range matches {
		if i == maxGlobMatches {
			break
		}
		out = append(out, p.Ref(m))
	}
	return out
}

func hasRisk(a *shellcmd.Analysis, kind string) bool {
	for _, r := range a.Risks {
		if r.Kind == kind {
			return true
		}
	}
	return false
}

// Ref refers to a workspace path for the rules. Whether it is a
// directory, which only rules ending in "/" ask, is looked up when one of
// them matches it: most calls touch no such rule and cost no stat.
func (p *Policy) Ref(rel string) PathRef { return p.refIn(rel, new(dirLookup)) }

// refIn is Ref with its directory lookup kept in d.
func (p *Policy) refIn(rel string, d *dirLookup) PathRef {
	*d = dirLookup{root: p.workspace.Root, wsDir: p.workspace.Dir, rel: rel}
	return PathRef{Rel: rel, dir: d}
}

// RealPath resolves the symlinks of a workspace path, so that a link to an
// ignored file is judged as that file. A path that does not exist yet is
// resolved through its longest existing parent. It reports false when the
// path resolves outside the workspace (os.Root refuses those anyway).
func (p *Policy) RealPath(rel string) (string, bool) {
	if p.workspace.PlainPath(rel) {
		return path.Clean(rel), true
	}
	full := filepath.Join(p.workspace.Dir, filepath.FromSlash(rel))
	rest := ""
	for {
		real, err := filepath.EvalSymlinks(full)
		if err == nil {
			r, err := filepath.Rel(p.workspace.Dir, filepath.Join(real, rest))
			if err != nil || !filepath.IsLocal(r) && r != "." {
				return "", false
			}
			return path.Clean(filepath.ToSlash(r)), true
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return rel, true
		}
		parent := filepath.Dir(full)
		if parent == full || len(parent) < len(p.workspace.Dir) {
			return rel, true
		}
		rest = filepath.Join(filepath.Base(full), rest)
		full = parent
	}
}

// Subject is a call as rules see it.
type Subject struct {
	// BadCwd says why a command's working directory cannot be used
	// (outside the workspace, or not a valid path): no approval can make
	// a command run there, so the call is refused.
	BadCwd error
	Tool   string // registry name: read_file, execute_command, use_mcp_tool
	// Names are the other Names rules may use for the call: for a command
	// line, those of every tool that runs one (SetCommandTools).
	Names      []string
	MCPServer  string // for use_mcp_tool
	MCPTool    string
	Paths      []PathRef          // workspace paths the call touches
	URL        string             // the web address the call reaches
	Host       string             // its host name, lower case
	Command    *shellcmd.Analysis // for execute_command
	Line       string             // the command line
	Background bool               // a command started as a session job
	Outside    []string           // command words naming paths outside the workspace
	Writes     []string           // workspace files the command's output redirections write
}

// PathRef is a workspace-relative path and whether it names a directory.
type PathRef struct {
	Rel string
	// Given is the path as the call gave it when that was absolute (a
	// native Cline call's absolutePath), which Cline's refusals name.
	Given string
	dir   *dirLookup // whether it names a directory, looked up once when asked
	// Walked marks a directory a tool walks (tool.Spec.Walks): the
	// ignore rules judge it by name, as if it were no directory.
	Walked bool
}

// IsDir reports whether the path names a directory (through symlinks), as
// the workspace holds it when first asked.
func (p PathRef) IsDir() bool {
	if p.dir == nil {
		return false
	}
	p.dir.once.Do(func() {
		st, err := p.dir.root.Stat(p.dir.rel)
		p.dir.is = err == nil && st.IsDir()
	})
	return p.dir.is
}

// abs is the path's absolute form, slash-separated, for rules rooted at
// "/" (//path, ~/path); "" for a path made without a workspace. Made when
// such a rule asks: most calls meet none (BenchmarkPolicyStage,
// ./coordinator/; docs/benchmarks.md).
func (p PathRef) abs() string {
	if p.dir == nil {
		return ""
	}
	return filepath.ToSlash(filepath.Join(p.dir.wsDir, filepath.FromSlash(p.dir.rel)))
}

// dirLookup is a path's directory lookup, made at most once, and what
// its absolute form is made of.
type dirLookup struct {
	once  sync.Once
	root  *os.Root
	wsDir string
	rel   string
	is    bool
}

// uniquePaths drops later repeats of a path, keeping the order.
func uniquePaths(ps []PathRef) []PathRef {
	if len(ps) < 2 {
		return ps
	}
	seen := make(map[string]bool, len(ps))
	out := ps[:0]
	for _, p := range ps {
		if !seen[p.Rel] {
			seen[p.Rel] = true
			out = append(out, p)
		}
	}
	return out
}
