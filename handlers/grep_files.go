package handlers

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/handlers/search"
)

// GrepInput is grep_files's input, Claude Code's Grep parameters (ripgrep's
// flags by their names).
type GrepInput struct {
	Pattern    string `json:"pattern" validate:"required" jsonschema:"regular expression to search file contents for (ripgrep syntax)"`
	Path       string `json:"path,omitempty" jsonschema:"file or directory to search (default: the workspace)"`
	Glob       string `json:"glob,omitempty" jsonschema:"glob selecting files, e.g. *.js or *.{ts,tsx} (rg --glob)"`
	Type       string `json:"type,omitempty" jsonschema:"file type to search, e.g. js, py, rust, go (rg --type)"`
	OutputMode string `json:"output_mode,omitempty" validate:"omitempty,oneof=content files_with_matches count" jsonschema:"content shows matching lines, files_with_matches (default) the files, count the matches per file"`
	IgnoreCase bool   `json:"-i,omitempty" jsonschema:"case insensitive search (rg -i)"`
	LineNumber *bool  `json:"-n,omitempty" jsonschema:"show line numbers (rg -n); content mode only, default true"`
	After      int    `json:"-A,omitempty" validate:"min=0,max=1000" jsonschema:"lines of context after each match (rg -A); content mode only"`
	Before     int    `json:"-B,omitempty" validate:"min=0,max=1000" jsonschema:"lines of context before each match (rg -B); content mode only"`
	Context    int    `json:"-C,omitempty" validate:"min=0,max=1000" jsonschema:"lines of context before and after each match (rg -C); content mode only"`
	Multiline  bool   `json:"multiline,omitempty" jsonschema:"let patterns span lines and . match newlines (rg -U --multiline-dotall)"`
	HeadLimit  int    `json:"head_limit,omitempty" validate:"min=0" jsonschema:"keep only the first N lines or entries of the output"`
	Offset     int    `json:"offset,omitempty" validate:"min=0" jsonschema:"skip the first N lines or entries of the output, before head_limit"`
	Only       bool   `json:"-o,omitempty" jsonschema:"show only the matched parts of matching lines, each on its own line (rg -o); content mode only"`
}

// grepMaxFileBytes bounds a file Grep reads whole.
const grepMaxFileBytes = maxEditBytes

func newGrepFiles(name string, env tool.Env) *tool.Tool {
	return tool.NewTool(tool.Spec[GrepInput]{
		Name: name,
		Description: "Search file contents for a regular expression (ripgrep syntax), in files chosen as ripgrep chooses them. " +
			"output_mode: files_with_matches (default, newest first), content (matching lines, with -A/-B/-C context and -n numbers) or count.",
		Run:             grepFiles,
		ConcurrencySafe: func(*GrepInput) bool { return true },
		Paths:           func(in *GrepInput) []string { return []string{orDot(in.Path)} },
	})
}

// grepFile is one searched file's answer.
type grepFile struct {
	path    string // relative to the workspace, as ripgrep run there shows it
	abs     string // absolute, as ripgrep shows it when given an absolute path
	found   search.FoundFile
	lines   []string
	matched []bool // by line index
	count   int
}

func grepFiles(ctx context.Context, call *tool.Call, in *GrepInput) (tool.Result, error) {
	re, err := grepRegexp(in)
	if err != nil {
		return tool.Result{}, err
	}
	files, excluded, named, err := grepSelection(ctx, call, in)
	if err != nil {
		return tool.Result{}, err
	}
	if afterGrepSelection != nil {
		afterGrepSelection()
	}
	var hits []grepFile
	for _, f := range files {
		if ctx.Err() != nil {
			return tool.Result{}, ctx.Err()
		}
		g, ok, err := grepOne(call, f, re, in.Multiline)
		switch {
		case err != nil && named:
			return tool.Result{}, err
		case err != nil:
			excluded++
		case ok:
			hits = append(hits, g)
		}
	}
	var text string
	switch in.OutputMode {
	case "content":
		text = grepContent(hits, in, re, named)
	case "count":
		text = grepCount(hits, in)
	default:
		text = grepFilesWithMatches(hits, in)
	}
	return tool.TextResult(text + excludedNote(call, excluded)), nil
}

// grepRegexp compiles the pattern with the search engine's translation of
// Rust syntax, adding -i and multiline's flags.
func grepRegexp(in *GrepInput) (*regexp.Regexp, error) {
	flags := ""
	if in.IgnoreCase {
		flags += "i"
	}
	compile := search.CompilePattern
	if in.Multiline {
		flags += "s"
		compile = search.CompileMultiline
	}
	pattern := in.Pattern
	if flags != "" {
		pattern = "(?" + flags + ")" + pattern
	}
	re, err := compile(pattern)
	if err != nil {
		return nil, tool.Errorf(api.ToolCodeInvalidRegex, "%v", err)
	}
	return re, nil
}

// afterGrepSelection, when set (by tests), runs between Grep's choice of
// files and their opening: the moment a swapped-in link would have to win.
var afterGrepSelection func()

// grepSelection lists the files to search: the path itself when it names
// a file (named is set), else the engine's selection below it.
func grepSelection(ctx context.Context, call *tool.Call, in *GrepInput) (files []search.FoundFile, excluded int, named bool, err error) {
	rel, err := call.Workspace.Rel(orDot(in.Path))
	if err != nil {
		return nil, 0, false, err
	}
	st, err := call.Workspace.Root.Stat(rel)
	if err != nil {
		return nil, 0, false, fileError(rel, err)
	}
	if !st.IsDir() {
		return []search.FoundFile{{Path: rel, ModTime: st.ModTime(), Size: st.Size()}}, 0, true, nil
	}
	var patterns []string
	if in.Glob != "" {
		patterns = append(patterns, in.Glob)
	}
	if in.Type != "" {
		g, ok := search.TypeGlob(in.Type)
		if !ok {
			return nil, 0, false, tool.Errorf(api.ToolCodeInvalidType, "unrecognized file type: %s", in.Type)
		}
		patterns = append(patterns, g)
	}
	res, err := search.Files(ctx, call.Workspace.Root, search.FilesOptions{Path: rel, FilePatterns: patterns, Exclude: callExclude(call)})
	var xe *search.ExcludedError
	switch {
	case err == nil:
		return res.Files, res.Excluded, false, nil
	case ctx.Err() != nil:
		return nil, 0, false, ctx.Err()
	case errors.As(err, &xe):
		return nil, 0, false, fileError(rel, err)
	}
	return nil, 0, false, tool.Errorf(api.ToolCodeInvalidFilePattern, "%v", err)
}

// grepOne searches one text file; binary and oversized files are skipped,
// as ripgrep skips binary files. The ignore rules judge the file opened,
// where it really is: the name was chosen earlier, and a link swapped in
// since would lead the open elsewhere (the error says so).
func grepOne(call *tool.Call, f search.FoundFile, re *regexp.Regexp, multiline bool) (grepFile, bool, error) {
	if f.Size > grepMaxFileBytes {
		return grepFile{}, false, nil
	}
	file, err := call.Workspace.Root.Open(f.Path)
	if err != nil {
		return grepFile{}, false, nil
	}
	if err := call.CheckOpened(file, f.Path, false); err != nil {
		file.Close()
		return grepFile{}, false, err
	}
	data, err := io.ReadAll(io.LimitReader(file, grepMaxFileBytes))
	file.Close()
	if err != nil || isBinary(data[:min(len(data), 8192)]) {
		return grepFile{}, false, nil
	}
	text := string(data)
	g := grepFile{path: f.Path, abs: filepath.Join(call.Workspace.Dir, filepath.FromSlash(f.Path)), found: f}
	g.lines = strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	g.matched = make([]bool, len(g.lines))
	if multiline {
		for _, m := range re.FindAllStringIndex(text, -1) {
			g.count++
			first := strings.Count(text[:m[0]], "\n")
			last := first + strings.Count(text[m[0]:max(m[1]-1, m[0])], "\n")
			for i := first; i <= last && i < len(g.lines); i++ {
				g.matched[i] = true
			}
		}
	} else {
		for i, l := range g.lines {
			if n := len(re.FindAllStringIndex(strings.TrimSuffix(l, "\r"), -1)); n > 0 {
				g.matched[i] = true
				g.count += n
			}
		}
	}
	return g, g.count > 0, nil
}
