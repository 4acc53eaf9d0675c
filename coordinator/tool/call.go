package tool

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/toolgate/toolgate/api"

	"github.com/toolgate/toolgate/internal/fdpath"
	"github.com/toolgate/toolgate/internal/ignore"
	"github.com/toolgate/toolgate/internal/sandbox"
)

// Call is what a handler knows of the call it serves beyond its input: who
// is calling, where, and where partial output goes.
type Call struct {
	ToolUseID string
	Name      string
	SessionID string
	Workspace *Workspace
	Logger    *slog.Logger
	// Files is the session's memory of files read and written; handlers
	// record reads and check it before edits. The coordinator always
	// sets it; a call built without one must not reach a handler that
	// reads or writes files.
	Files Files
	// Partial marks a preview of a tool_use block that is still streaming
	// in: its input may be cut anywhere.
	Partial bool
	// SessionDone is closed when the call's session ends, for handlers
	// that keep something per session (browser_action's browser); nil
	// when the call has no session.
	SessionDone <-chan struct{}
	// PlainResults asks for results without the client texts the
	// registry's tools answer in by default (Texts): an MCP tool's or
	// resource's blocks as the server gave them, a command's output as it
	// was written, a patch's summary alone. The session's dialect sets it
	// (Dialect.PlainResults) when it words results its own way; a handler
	// never learns which dialect that is.
	PlainResults bool
	// Texts word the call's result as its session's dialect words the
	// registry tools' results (Dialect.Texts); never nil in a call the
	// pipeline runs.
	Texts Texts
	// SearchAll asks search_files to choose files as its client's ripgrep
	// call does, the glob (the file pattern, or '*') overriding the ignore
	// rules: gitignored and hidden files are searched, .git too. The
	// call's exclusions (.clineignore, deny rules on reading) still hide
	// files. The session's dialect sets it (Dialect.SearchAll); a handler
	// never learns which dialect that is.
	SearchAll bool
	// CommandEnv are variables a command the call starts gets on top of
	// the server's environment, the configured env still overriding them
	// (CommandConfig.ChildEnvFor): those the session's dialect's client
	// sets for its own commands (Dialect.CommandEnv); nil for none.
	CommandEnv map[string]string
	// ReadTurn is the call's turn among the session's reads (FileMemory
	// QueueRead) when its tool counts reads, 0 otherwise.
	ReadTurn uint64

	rt Runtime
	// excludedBy are the sources of the rules Exclude hit, for
	// ExcludedNote.
	excludedMu sync.Mutex
	excludedBy []string
}

// Runtime is what the pipeline plugs into a Call before the handler runs:
// the ignore rules in force, the session's jobs and todos, and its Host:
// where output goes, where the full output is kept, how the call waits
// for the user, how it is confined. A Call without a Host (a handler
// test's) answers as HostFuncs{} does: it drops output, cannot wait for
// input and runs processes unconfined.
type Runtime struct {
	// Ignored holds the ignore rules in force when the call started.
	Ignored *ignore.Matcher
	// SandboxHint explains a failure the sandbox caused, "" otherwise.
	SandboxHint func(output string) string
	// Jobs are the session's background jobs.
	Jobs Jobs
	// Todos replaces the session's todo list.
	Todos func([]api.Todo)
	// Recorded waits until the call's start is recorded as the pipeline
	// requires (Spec.AwaitsStart); nil when nothing is pending.
	Recorded func() error
	// Host is the pipeline's running call. It is an interface, not a func
	// per request, so that the running call answers with its own methods:
	// one allocation with the call, where a func each would be a closure
	// allocated per call (BenchmarkCallRuntime in ./coordinator/).
	Host Host
	// AfterAnswer holds what the call may close once the answer of the
	// request that brought it is sent (CloseAfterAnswer); nil when no
	// request waits for one.
	AfterAnswer *AfterAnswer
}

// Host is the pipeline's side of a running call: the requests a handler
// makes that need the call's session and entry.
type Host interface {
	// Output receives chunks of partial output for the session's events.
	Output(stream, chunk string)
	// Keep takes the call's full output for the session.
	Keep(KeptOutput)
	// Await asks the user and waits for the answer.
	Await(ctx context.Context, req api.InputRequest) (api.AnswerRequest, error)
	// Confine says how a process the call starts in dir is confined: the
	// sandbox and what the process may see.
	Confine(dir string) (*sandbox.Sandbox, sandbox.Run, error)
	// DeniedURL refuses a web address the call reaches on its own (a
	// redirect, a page the browser navigates to) that a deny rule covers.
	DeniedURL(url string) error
}

// HostFuncs is a Host made of funcs; a nil one answers as a Call without
// a Host does. Tests plug in the requests they watch.
type HostFuncs struct {
	OnOutput    func(stream, chunk string)
	OnKeep      func(KeptOutput)
	OnAwait     func(ctx context.Context, req api.InputRequest) (api.AnswerRequest, error)
	OnConfine   func(dir string) (*sandbox.Sandbox, sandbox.Run, error)
	OnDeniedURL func(url string) error
}

// Output drops the chunk unless f.OnOutput takes it.
func (f HostFuncs) Output(stream, chunk string) {
	if f.OnOutput != nil {
		f.OnOutput(stream, chunk)
	}
}

// Keep removes the output unless f.OnKeep takes it: nobody would.
func (f HostFuncs) Keep(o KeptOutput) {
	if f.OnKeep != nil {
		f.OnKeep(o)
		return
	}
	_ = o.Remove()
}

// Await refuses to wait unless f.OnAwait asks.
func (f HostFuncs) Await(ctx context.Context, req api.InputRequest) (api.AnswerRequest, error) {
	if f.OnAwait != nil {
		return f.OnAwait(ctx, req)
	}
	return api.AnswerRequest{}, Errorf(api.ToolCodeFailed, "this call cannot wait for input")
}

// Confine runs the process unconfined in dir unless f.OnConfine says.
func (f HostFuncs) Confine(dir string) (*sandbox.Sandbox, sandbox.Run, error) {
	if f.OnConfine != nil {
		return f.OnConfine(dir)
	}
	return nil, sandbox.Run{Workspace: dir, Dir: dir}, nil
}

// DeniedURL allows every address unless f.OnDeniedURL refuses it.
func (f HostFuncs) DeniedURL(url string) error {
	if f.OnDeniedURL != nil {
		return f.OnDeniedURL(url)
	}
	return nil
}

// host is the call's Host, HostFuncs{} when it has none.
func (c *Call) host() Host {
	if c.rt.Host != nil {
		return c.rt.Host
	}
	return HostFuncs{}
}

// CheckURL refuses a web address a call reaches after its policy check
// when the session's or the managed deny rules cover it; nil otherwise.
func (c *Call) CheckURL(url string) error { return c.host().DeniedURL(url) }

// SetTodos replaces the session's todo list (Claude Code's TodoWrite);
// the session announces it with a todos.updated event.
func (c *Call) SetTodos(todos []api.Todo) {
	if c.rt.Todos != nil {
		c.rt.Todos(todos)
	}
}

// Recorded waits until the pipeline has recorded the call's start, on
// disk for a call with effects, and reports whether it could. A tool that
// sets Spec.AwaitsStart calls it right before its first effect; an error
// means the call must not run. It returns at once for any other tool,
// whose start is recorded before its Run is called.
func (c *Call) Recorded() error {
	if c.rt.Recorded == nil {
		return nil
	}
	return c.rt.Recorded()
}

// Attach plugs the pipeline's runtime into the call.
func (c *Call) Attach(rt Runtime) { c.rt = rt }

// CloseAfterAnswer closes cl once the answer of the request that brought
// the call is sent, or at once when there is none (AfterAnswer). The
// handler must not use cl after.
func (c *Call) CloseAfterAnswer(cl io.Closer) { c.rt.AfterAnswer.Close(cl) }

// Output sends a chunk of partial output (stream "stdout", "stderr" or
// "match", ...) to the session's event stream. It never blocks on readers.
func (c *Call) Output(stream, chunk string) {
	if chunk != "" {
		c.host().Output(stream, chunk)
	}
}

// KeptOutput is a call's full output, kept beside its record so that a
// client can fetch more than the tool_result holds. The session removes it
// when the call is evicted or the session ends.
type KeptOutput interface {
	// Open reads the output from its start.
	Open() (io.ReadCloser, error)
	// Size is the output's length in bytes; Open reads at least that many
	// while it still grows.
	Size() int64
	// Remove frees what the output holds (a spill file).
	Remove() error
}

// KeepOutput hands the call's full output to its session.
func (c *Call) KeepOutput(o KeptOutput) { c.host().Keep(o) }

// AwaitInput puts the call in state awaiting_input, announces what the
// user is asked with tool.awaiting_input and waits for the answer. It
// returns the answer; the call's end (an interrupt, a cancel) or the
// configured input timeout end the wait with an error.
func (c *Call) AwaitInput(ctx context.Context, req api.InputRequest) (api.AnswerRequest, error) {
	return c.host().Await(ctx, req)
}

// Exclude reports whether the ignore rules (.clineignore and the extra
// ignore files) cover a workspace-relative path. Listing and search tools
// leave such entries out of their output and add IgnoredNote(n). The rules
// are those in force when the call started.
func (c *Call) Exclude(rel string, isDir bool) bool {
	if c.rt.Ignored == nil {
		return false
	}
	r, hit := c.rt.Ignored.Match(rel, isDir)
	if hit {
		c.excludedMu.Lock()
		if !slices.Contains(c.excludedBy, r.Source) && len(c.excludedBy) < 8 {
			c.excludedBy = append(c.excludedBy, r.Source)
		}
		c.excludedMu.Unlock()
	}
	return hit
}

// IgnoredNote is the line listing and search tools append when they left
// n entries out because of the ignore rules; "" when n is 0. It names
// .clineignore, as Cline's tools do; ExcludedNote names what really
// excluded them.
func IgnoredNote(n int) string {
	return excludedNote(n, []string{".clineignore"})
}

// DenyRuleSource starts the Source of an ignore rule made from a
// permission rule (a deny on reading, a hard link to a file it denies),
// so that what a call leaves out or refuses names the permission rule,
// not an ignore file; HardLinkSource is the Source of a hard link's rule.
const (
	DenyRuleSource = "permission: "
	HardLinkSource = DenyRuleSource + "hard link"
)

// DescribeSource names an ignore rule's Source for a sentence ("...
// because X excludes it"), and reports whether it is a permission rule.
func DescribeSource(source string) (string, bool) {
	if source == HardLinkSource {
		return "the deny rules on reading (it is a hard link to a file they deny)", true
	}
	if rule, ok := strings.CutPrefix(source, DenyRuleSource); ok {
		return "the " + rule, true
	}
	return source, false
}

// ExcludedNote is IgnoredNote naming the sources of the rules that
// excluded entries during this call (Exclude): .clineignore in Cline's
// words, else each ignore file or permission rule.
func (c *Call) ExcludedNote(n int) string {
	c.excludedMu.Lock()
	sources := slices.Clone(c.excludedBy)
	c.excludedMu.Unlock()
	if len(sources) == 0 {
		sources = []string{".clineignore"}
	}
	return excludedNote(n, sources)
}

func excludedNote(n int, sources []string) string {
	if n == 0 {
		return ""
	}
	var names []string
	for _, s := range sources {
		name, _ := DescribeSource(s)
		names = append(names, name)
	}
	by := strings.Join(names, " and ")
	if n == 1 {
		return "(1 entry was left out because " + by + " excludes it.)"
	}
	return fmt.Sprintf("(%d entries were left out because %s %s them.)", n, by, map[bool]string{true: "exclude", false: "excludes"}[len(names) > 1])
}

// Confinement is the sandbox that must confine a process the call starts
// in dir (absolute; "" for the workspace) and what that process may see.
// The error refuses the run (too many ignored paths to hide, say).
func (c *Call) Confinement(dir string) (*sandbox.Sandbox, sandbox.Run, error) {
	return c.host().Confine(dir)
}

// SandboxHint is a line explaining a failure that the output shows the
// sandbox caused (a read-only file system, no network), "" otherwise.
func (c *Call) SandboxHint(output string) string {
	if c.rt.SandboxHint == nil {
		return ""
	}
	return c.rt.SandboxHint(output)
}

// CheckOpened refuses a file a handler has opened when the ignore rules
// cover the file where it really is. The policy judged the path before the
// call ran, following symlinks by name; a link swapped in since then would
// otherwise lead the handler to an ignored file. f's real path comes from
// the open handle, so this judges the very file that will be read. rel is
// the path the call named, for the message.
//
// A regular file with several names is also judged by its other names
// (hardlinks.go), with or without ignore rules.
func (c *Call) CheckOpened(f *os.File, rel string, isDir bool) error {
	if err := c.checkOpenedReal(f, rel, isDir); err != nil {
		return err
	}
	if isDir || c.Workspace == nil {
		return nil
	}
	return c.checkLinks(f, rel)
}

// CheckOpenedFile is CheckOpened for a file, not a directory, that the
// caller has stat'ed through the open handle (info): its other names are
// judged from info, without asking the kernel again.
func (c *Call) CheckOpenedFile(f *os.File, info fs.FileInfo, rel string) error {
	if err := c.checkOpenedReal(f, rel, false); err != nil {
		return err
	}
	if c.Workspace == nil || !info.Mode().IsRegular() {
		return nil
	}
	st, _ := info.Sys().(*syscall.Stat_t)
	return c.CheckLinked(st, rel)
}

// CheckOpenedPlain is CheckOpenedFile for a file, not a directory, that
// OpenPlain opened as rel: no symlink was followed, so rel is where the file really is and
// the ignore rules judge it without asking the kernel for its path.
func (c *Call) CheckOpenedPlain(f *PlainFile, rel string) error {
	info := f.Info()
	if c.HasIgnoreRules() {
		if err := c.ignoredError(rel, rel, false); err != nil {
			return err
		}
	}
	if c.Workspace == nil || !info.Mode().IsRegular() {
		return nil
	}
	st, _ := info.Sys().(*syscall.Stat_t)
	return c.CheckLinked(st, rel)
}

// checkOpenedReal judges the real path of the open handle by the ignore
// rules, when there are any.
func (c *Call) checkOpenedReal(f *os.File, rel string, isDir bool) error {
	if !c.HasIgnoreRules() {
		return nil
	}
	real, err := fdpath.Of(f)
	if err != nil {
		return UnknownRealError(rel, err)
	}
	return c.CheckReal(real, rel, isDir)
}

// UnknownRealError refuses a file opened as rel whose real path cannot be
// read while ignore rules are in force. It fails closed: the policy judged
// the name, and a link swapped in since may have led the open to an
// ignored file.
func UnknownRealError(rel string, err error) error {
	return Errorf(api.ToolCodeIgnored, "Access to %s is refused: the ignore rules cannot be checked on the file opened, "+
		"because its real path cannot be read (%v).", rel, err)
}

// IgnoreRules are the ignore rules the call runs under (nil: none).
func (c *Call) IgnoreRules() *ignore.Matcher { return c.rt.Ignored }

// HasIgnoreRules reports whether CheckReal has anything to judge.
func (c *Call) HasIgnoreRules() bool {
	return c.rt.Ignored != nil && c.rt.Ignored.Len() > 0 && c.Workspace != nil
}

// CheckReal is CheckOpened for an absolute real path the caller resolved
// from a handle, such as the directory an atomic write goes through.
func (c *Call) CheckReal(real, rel string, isDir bool) error {
	if !c.HasIgnoreRules() {
		return nil
	}
	r, err := filepath.Rel(c.Workspace.Dir, real)
	if err != nil || !filepath.IsLocal(r) {
		return nil // not inside the workspace: os.Root refuses those
	}
	r = filepath.ToSlash(r)
	if _, hit := c.rt.Ignored.Match(r, isDir); !hit {
		return nil
	}
	shown := rel
	if r != rel {
		shown = fmt.Sprintf("%s (a link to %s)", rel, r)
	}
	return c.ignoredError(shown, r, isDir)
}

// ignoredError refuses a file the ignore rules cover as r, named shown in
// the message; nil when they do not cover r.
func (c *Call) ignoredError(shown, r string, isDir bool) error {
	if c.rt.Ignored == nil {
		return nil
	}
	rule, hit := c.rt.Ignored.Match(r, isDir)
	if !hit {
		return nil
	}
	if rule.Source == ".clineignore" && c.Texts != nil {
		// The default dialect's ignore file: its client's words, alone.
		return Errorf(api.ToolCodeIgnored, "%s", c.Texts.IgnoredPath(shown))
	}
	return Errorf(api.ToolCodeIgnored, "Access to %s is blocked by %s (%s). "+
		"You must continue without this file, or ask the user to update the ignore file.", shown, rule.Source, rule)
}
