package handlers

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/handlers/search"
)

func searchTree(t *testing.T) *tool.Workspace {
	t.Helper()
	return workspaceWith(t, map[string]string{
		".git/HEAD":      "ref\n",
		".gitignore":     "*.log\n",
		"app.log":        "needle in a log\n",
		"a.txt":          "one\nneedle two\nthree\n",
		"src/b.go":       "package b\n\n// needle here\nfunc B() {}\n",
		"src/.gitignore": "gen/\n",
		"src/gen/g.go":   "needle generated\n",
		".hidden.txt":    "needle hidden\n",
		"bin.dat":        "needle\x00binary\n",
	})
}

func runSearch(t *testing.T, ws *tool.Workspace, in SearchFilesInput, exclude excludeFunc) (tool.Result, error) {
	t.Helper()
	return searchFiles(bg, &tool.Call{Workspace: ws}, &in, nil, exclude)
}

// TestSearchFilesOutput: context lines are grouped as cline@2.18.0's
// parser groups ripgrep's: those before the search's first match are
// dropped, and a file's leading context goes with the match before it,
// in the file before.
func TestSearchFilesOutput(t *testing.T) {
	ws := searchTree(t)
	tests := []struct {
		name string
		in   SearchFilesInput
		want string
	}{
		{"whole workspace, ignored hidden and binary files skipped", SearchFilesInput{Path: ".", Regex: "needle"},
			"Found 2 results.\n\na.txt\n│----\n│needle two\n│three\n│\n│----\n\nsrc/b.go\n│----\n│// needle here\n│func B() {}\n│----"},
		{"subdirectory keeps workspace-relative paths", SearchFilesInput{Path: "src", Regex: `func \w+\(`},
			"Found 1 result.\n\nsrc/b.go\n│----\n│func B() {}\n│----"},
		{"file pattern", SearchFilesInput{Path: ".", Regex: "needle", FilePattern: "*.go"},
			"Found 1 result.\n\nsrc/b.go\n│----\n│// needle here\n│func B() {}\n│----"},
		{"no match", SearchFilesInput{Path: ".", Regex: "haystack"}, "Found 0 results."},
		{"one file at the root", SearchFilesInput{Path: "a.txt", Regex: "needle"},
			"Found 1 result.\n\na.txt\n│----\n│needle two\n│three\n│----"},
		{"one file in a directory, file pattern aside", SearchFilesInput{Path: "src/b.go", Regex: "needle|func", FilePattern: "*.txt"},
			"Found 2 results.\n\nsrc/b.go\n│----\n│// needle here\n│----\n│func B() {}\n│----"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := runSearch(t, ws, tc.in, nil)
			if got := okText(t, res, err); got != tc.want {
				t.Errorf("output:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

// TestSearchFilesOneFile: a file as the path searches that file alone,
// as ripgrep searches a file named on its command line; another file of
// the same name elsewhere (src/.gitignore beside .gitignore) is not
// searched.
func TestSearchFilesOneFile(t *testing.T) {
	ws := searchTree(t)
	res, err := searchFiles(bg, &tool.Call{Workspace: ws, SearchAll: true}, &SearchFilesInput{Path: ".gitignore", Regex: "log|gen"}, nil, nil)
	if got, want := okText(t, res, err), "Found 1 result.\n\n.gitignore\n│----\n│*.log\n│----"; got != want {
		t.Errorf("output:\n%s\nwant:\n%s", got, want)
	}
}

func TestSearchFilesErrors(t *testing.T) {
	out := outsideDir(t)
	ws := searchTree(t)
	if err := os.Symlink(out, filepath.Join(ws.Dir, "escape")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		in   SearchFilesInput
		code string
	}{
		{"look-around", SearchFilesInput{Path: ".", Regex: "foo(?=bar)"}, "invalid_regex"},
		{"backreference", SearchFilesInput{Path: ".", Regex: `(a)\1`}, "invalid_regex"},
		{"bad glob", SearchFilesInput{Path: ".", Regex: "x", FilePattern: "*.{go"}, "invalid_file_pattern"},
		{"parent directory", SearchFilesInput{Path: "../", Regex: "needle"}, "outside_workspace"},
		{"absolute path outside", SearchFilesInput{Path: out, Regex: "needle"}, "outside_workspace"},
		{"symlink leading outside", SearchFilesInput{Path: "escape", Regex: "needle"}, "outside_workspace"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := runSearch(t, ws, tc.in, nil)
			wantToolError(t, err, tc.code)
		})
	}
	t.Run("symlink inside the workspace is not followed", func(t *testing.T) {
		res, err := runSearch(t, ws, SearchFilesInput{Path: ".", Regex: "secret"}, nil)
		if got := okText(t, res, err); got != "Found 0 results." {
			t.Errorf("output = %q, want no results", got)
		}
	})
}

func TestSearchFilesCapNote(t *testing.T) {
	files := map[string]string{}
	for i := range 40 {
		files[fmt.Sprintf("f%02d.txt", i)] = strings.Repeat("hit\nx\n", 10)
	}
	ws := workspaceWith(t, files)
	res, err := runSearch(t, ws, SearchFilesInput{Path: ".", Regex: "hit"}, nil)
	got := okText(t, res, err)
	if want := "Showing first 300 of 300+ results. Use a more specific search if necessary.\n\nf00.txt\n"; !strings.HasPrefix(got, want) {
		t.Errorf("output starts %q, want %q", got[:min(len(got), 120)], want)
	}
	if strings.Contains(got, "f30.txt") || !strings.Contains(got, "f29.txt") {
		t.Errorf("output should end with f29.txt, the file holding the 300th match")
	}
}

func TestSearchFilesExclusion(t *testing.T) {
	ws := workspaceWith(t, map[string]string{"a.txt": "needle\n", ".env": "needle\n", "keys/k.txt": "needle\n", "b.txt": "needle\n"})
	res, err := runSearch(t, ws, SearchFilesInput{Path: ".", Regex: "needle"}, excludeNames("b.txt", "keys"))
	got := okText(t, res, err)
	if strings.Contains(got, "b.txt") || strings.Contains(got, "keys") {
		t.Errorf("excluded entries shown:\n%s", got)
	}
	// Cline says nothing of the matches .clineignore hides.
	if want := "Found 1 result.\n\na.txt\n│----\n│needle\n│----"; got != want {
		t.Errorf("output %q, want %q", got, want)
	}
}

// TestSearchFilesStreams runs search_files through a real coordinator and
// checks that matches reach the session's events as tool.output before the
// call finishes.
func TestSearchFilesStreams(t *testing.T) {
	ws := searchTree(t)
	c := coordinator.New(coordinator.Options{Workspace: ws, Tools: Default()})
	defer c.Close()
	s, err := c.Sessions().Get("default")
	if err != nil {
		t.Fatal(err)
	}
	input, _ := json.Marshal(SearchFilesInput{Path: ".", Regex: "needle"})
	res, rec := c.Execute(bg, s, "msg_1", api.ToolUse{Type: "tool_use", ID: "toolu_1", Name: "search_files", Input: input})
	if res.IsError || rec.Status != api.StatusSucceeded {
		t.Fatalf("call = %+v %+v, want success", rec, res)
	}
	b := s.Events.Read(0, 100)
	evs := b.Events
	var chunks []string
	finished := false
	for _, ev := range evs {
		switch ev.Type {
		case api.EventToolOutput:
			if finished {
				t.Errorf("tool.output after tool.finished")
			}
			if ev.Stream != "match" || ev.ToolUseID != "toolu_1" {
				t.Errorf("output event stream=%q tool_use_id=%q, want match, toolu_1", ev.Stream, ev.ToolUseID)
			}
			chunks = append(chunks, ev.Chunk)
		case api.EventToolFinished:
			finished = true
		}
	}
	got := strings.Join(chunks, "")
	for _, want := range []string{"a.txt:2:needle two\n", "src/b.go:3:// needle here\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("streamed output %q lacks %q", got, want)
		}
	}
	if len(chunks) != 2 {
		t.Errorf("got %d output chunks, want one per matching file (2)", len(chunks))
	}
}

func TestSearchFilesStreamCap(t *testing.T) {
	var chunks []string
	st := &matchStream{emit: func(chunk string) { chunks = append(chunks, chunk) }}
	for f := range 40 {
		fm := search.FileMatches{Path: fmt.Sprintf("f%02d.txt", f), Count: 10}
		for i := range 10 {
			fm.Lines = append(fm.Lines, search.Line{Number: 2*i + 1, Text: "hit", Match: true}, search.Line{Number: 2*i + 2, Text: "x"})
		}
		st.send(fm)
	}
	got := strings.Count(strings.Join(chunks, ""), "\n")
	if got != streamMaxMatches {
		t.Errorf("streamed %d match lines, want the cap %d", got, streamMaxMatches)
	}
}

// TestSearchFilesInDirOnlyExcludedDirectory: a directory a rule for
// directories only excludes ("keys/") is searched as Cline searches it,
// its files all excluded: "Found 0 results.", not a refusal.
func TestSearchFilesInDirOnlyExcludedDirectory(t *testing.T) {
	ws := workspaceWith(t, map[string]string{"keys/k.txt": "needle\n"})
	dirOnly := func(rel string, isDir bool) bool { return rel == "keys" && isDir || strings.HasPrefix(rel, "keys/") }
	res, err := runSearch(t, ws, SearchFilesInput{Path: "keys", Regex: "needle"}, dirOnly)
	if got := okText(t, res, err); got != "Found 0 results." {
		t.Errorf("output %q, want Found 0 results.", got)
	}
}

// TestSearchFilesSearchAll: a call whose session's client searches as a
// ripgrep glob selects (tool.Call.SearchAll, Cline's) also searches
// gitignored and hidden files, binary files still skipped; the call's
// exclusions still hide a file, whose content shows nowhere.
func TestSearchFilesSearchAll(t *testing.T) {
	ws := searchTree(t)
	exclude := func(rel string, isDir bool) bool { return rel == "src/gen/g.go" }
	search := func(all bool, pattern string) string {
		t.Helper()
		in := SearchFilesInput{Path: ".", Regex: "needle", FilePattern: pattern}
		res, err := searchFiles(bg, &tool.Call{Workspace: ws, SearchAll: all}, &in, nil, exclude)
		return okText(t, res, err)
	}
	all := search(true, "")
	for _, want := range []string{"\napp.log\n", "\n.hidden.txt\n", "\na.txt\n", "\nsrc/b.go\n", "Found 4 results."} {
		if !strings.Contains(all, want) {
			t.Errorf("search of all files lacks %q:\n%s", want, all)
		}
	}
	for _, hidden := range []string{"generated", "src/gen", "bin.dat"} {
		if strings.Contains(all, hidden) {
			t.Errorf("search of all files shows %q:\n%s", hidden, all)
		}
	}
	if got := search(true, "*.log"); !strings.HasPrefix(got, "Found 1 result.\n\napp.log\n") {
		t.Errorf("a file pattern matching a gitignored file:\n%s", got)
	}
	if got := search(false, ""); strings.Contains(got, "app.log") || strings.Contains(got, ".hidden.txt") {
		t.Errorf("a search that follows the ignore rules shows ignored files:\n%s", got)
	}
}
