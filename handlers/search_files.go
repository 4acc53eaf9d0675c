package handlers

import (
	"context"
	"errors"
	"path"
	"strconv"
	"strings"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/handlers/search"
)

// SearchFilesInput is search_files's input.
type SearchFilesInput struct {
	Path        string `json:"path" validate:"required" jsonschema:"directory to search recursively, or one file, relative to the workspace"`
	Regex       string `json:"regex" validate:"required" jsonschema:"regular expression in Rust syntax (look-around and backreferences are not supported)"`
	FilePattern string `json:"file_pattern,omitempty" jsonschema:"glob selecting the files to search, e.g. *.ts or src/**/*.go (default: all files)"`
}

// Limits of the matches streamed while a search runs: the final answer has
// its own caps, and the stream should not outgrow it.
const (
	streamMaxMatches = search.DefaultMaxResults
	streamMaxBytes   = 256 << 10
)

func newSearchFiles(name string, env tool.Env) *tool.Tool {
	// One index per workspace, shared by every call, so repeated searches
	// skip the walk and the reads of unchanged files.
	idx := search.NewIndex(search.IndexOptions{})
	return tool.NewTool(tool.Spec[SearchFilesInput]{
		Name: name,
		Description: "Search the files below a directory of the workspace for a regular expression (Rust syntax), " +
			"with one line of context around each match, grouped by file. Files are chosen as ripgrep chooses them: " +
			".gitignore and .ignore rules apply, hidden and binary files are skipped (where the client's own search " +
			"overrides the ignore rules, ignored and hidden files are searched too). At most 300 results.",
		Run: func(ctx context.Context, call *tool.Call, in *SearchFilesInput) (tool.Result, error) {
			return searchFiles(ctx, call, in, idx, callExclude(call))
		},
		ConcurrencySafe: func(*SearchFilesInput) bool { return true },
		Paths:           func(in *SearchFilesInput) []string { return []string{in.Path} },
		Walks:           true,
	})
}

func searchFiles(ctx context.Context, call *tool.Call, in *SearchFilesInput, idx *search.Index, exclude excludeFunc) (tool.Result, error) {
	rel, file, err := searchTarget(call.Workspace, in.Path)
	if err != nil {
		return tool.Result{}, err
	}
	start, pattern := rel, in.FilePattern
	if file {
		// One file, as ripgrep searches a file named on its command line
		// (Cline passes the path on): its directory, selecting that path.
		start, pattern = path.Dir(rel), "/"+globEscape(rel)
	}
	if _, err := search.CompilePattern(in.Regex); err != nil {
		return tool.Result{}, tool.Errorf(api.ToolCodeInvalidRegex, "%v", err)
	}
	st := &matchStream{emit: func(chunk string) { call.Output("match", chunk) }}
	res, err := search.Search(ctx, call.Workspace.Root, search.Options{
		Path: start, Regex: in.Regex, FilePattern: pattern,
		Exclude: exclude, OnFile: st.send, Index: idx, GlobOverride: call.SearchAll,
		Withhold: call.WithholdLinked,
	})
	if err != nil {
		if ctx.Err() != nil {
			return tool.Result{}, ctx.Err()
		}
		var pe *search.PatternError
		if errors.As(err, &pe) {
			return tool.Result{}, tool.Errorf(api.ToolCodeInvalidRegex, "%v", err)
		}
		var fe *search.FilePatternError
		if errors.As(err, &fe) {
			return tool.Result{}, tool.Errorf(api.ToolCodeInvalidFilePattern, "%v", err)
		}
		return tool.Result{}, fileError(rel, err)
	}
	if file {
		res.Only(rel)
	}
	// No note of what .clineignore left out: Cline filters ripgrep's
	// matches and says nothing of them.
	return tool.TextResult(res.Format()), nil
}

// searchTarget resolves search_files' path: a directory, or a regular
// file (file true), searched alone.
func searchTarget(ws *tool.Workspace, p string) (rel string, file bool, err error) {
	rel, err = ws.Rel(p)
	if err != nil {
		return "", false, err
	}
	st, err := ws.Root.Stat(rel)
	if err != nil {
		return rel, false, fileError(rel, err)
	}
	if !st.IsDir() && !st.Mode().IsRegular() {
		return rel, false, tool.Errorf(api.ToolCodeNotRegular, "%s is neither a directory nor a regular file; search_files searches directories and files.", rel)
	}
	return rel, !st.IsDir(), nil
}

// globEscape quotes the characters a file pattern reads as wildcards.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]{},\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// matchStream turns each searched file's matches into one tool.output chunk
// ("match" stream) of "path:line:text" lines, as soon as the file is done.
// Files arrive in no particular order; the final result is the sorted,
// formatted answer.
type matchStream struct {
	emit           func(chunk string)
	matches, bytes int
}

func (s *matchStream) send(f search.FileMatches) {
	if s.matches >= streamMaxMatches || s.bytes >= streamMaxBytes {
		return
	}
	var b strings.Builder
	for _, l := range f.Lines {
		if !l.Match || s.matches >= streamMaxMatches {
			continue
		}
		s.matches++
		b.WriteString(f.Path + ":" + strconv.Itoa(l.Number) + ":" + strings.ToValidUTF8(l.Text, "\uFFFD") + "\n")
	}
	s.bytes += b.Len()
	if b.Len() > 0 {
		s.emit(b.String())
	}
}
