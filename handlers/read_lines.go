package handlers

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
	"unicode/utf16"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// ReadLinesInput is read_lines's input: a window of a file shown with
// line numbers. Claude Code's Read and the Messages API text editor's view
// map onto it.
type ReadLinesInput struct {
	Path   string `json:"path" validate:"required" jsonschema:"path of the file, relative to the workspace or absolute inside it"`
	Offset int    `json:"offset,omitempty" validate:"omitempty,min=1" jsonschema:"first line to read, 1-based (default 1)"`
	Limit  int    `json:"limit,omitempty" validate:"omitempty,min=1" jsonschema:"how many lines to read (default 2000)"`
	// Split shows the text as splitting it at each newline does (a
	// final newline is followed by one last, empty line), numbers
	// unpadded, every line whole, and every line unless limit says
	// otherwise: Claude Code 2.1's Read.
	Split bool `json:"split,omitempty" jsonschema:"show the text split at each newline: numbers unpadded, a final newline giving a last empty line, lines whole, no default limit"`
	// Unchanged answers ReadUnchanged instead of the lines when the
	// session's last dealing with the file was a read of the same window
	// and the file's mtime has not moved: Claude Code 2.1's Read.
	// Documents answers a PDF as a document block (readPDFDocument),
	// as Claude Code 2.1's Read does.
	Documents bool `json:"documents,omitempty" jsonschema:"answer a PDF whole, as a document block, instead of its lines"`
	// Pages renders these pages of a PDF as images (readPDFPages).
	Pages     string `json:"pages,omitempty" jsonschema:"pages of a PDF to render as images: 3, 1-5 or 10- (at most 20)"`
	Unchanged bool   `json:"unchanged,omitempty" jsonschema:"when the session last read this same window of the file and it has not been modified since, answer that it is unchanged instead of repeating the lines"`
}

// ReadUnchanged is read_lines's answer to a repeated read of a window
// whose file is unchanged (ReadLinesInput.Unchanged).
const ReadUnchanged = "The file is unchanged since the last read of the same lines; that earlier result still holds."

// Limits of one read_lines answer, as Claude Code's Read documents them.
const (
	readLinesDefault = 2000
	readLineMaxChars = 2000
	readLinesBytes   = 400 << 10
)

func newReadLines(name string, env tool.Env) *tool.Tool {
	return tool.NewTool(tool.Spec[ReadLinesInput]{
		Name: name,
		Description: "Read a file in the workspace in `cat -n` form: each line prefixed by its number, 2000 lines from offset " +
			"by default, lines over 2000 characters cut. Images come back as images, Jupyter notebooks as their cells.",
		Run:             readLines,
		ConcurrencySafe: func(*ReadLinesInput) bool { return true },
		Paths:           func(in *ReadLinesInput) []string { return []string{in.Path} },
	})
}

func readLines(ctx context.Context, call *tool.Call, in *ReadLinesInput) (tool.Result, error) {
	rel, err := call.Workspace.Rel(in.Path)
	if err != nil {
		return tool.Result{}, err
	}
	if in.Pages != "" && strings.EqualFold(path.Ext(rel), ".pdf") {
		// A PDF's pages are read from an *os.File (ReadAt).
		f, _, err := openRegularAt(call, rel)
		if err != nil {
			return tool.Result{}, err
		}
		defer f.Close()
		return readPDFPages(ctx, call, f, rel, in.Pages)
	}
	f, st, err := openReadable(call, rel)
	if err != nil {
		return tool.Result{}, err
	}
	defer f.Close()
	window, seen := readWindow(call, rel, st, in)
	if seen {
		return tool.TextResult(ReadUnchanged), nil
	}
	h := newStateHasher(f, st)
	defer h.release()
	head := make([]byte, 512)
	n, err := io.ReadFull(h, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return tool.Result{}, fileError(rel, err)
	}
	head = head[:n]
	var res tool.Result
	mt := imageType(head)
	switch {
	case mt != "":
		res, err = readImage(h, rel, head, mt)
	case in.Documents && strings.EqualFold(path.Ext(rel), ".pdf"):
		res, err = readPDFDocument(io.MultiReader(bytes.NewReader(head), h), call, rel, head)
	case isBinary(head):
		return tool.Result{}, tool.Errorf(api.ToolCodeBinaryFile, "Cannot read %s: it is a binary file, not text.", rel)
	case strings.EqualFold(path.Ext(rel), ".ipynb"):
		res, err = readNotebook(io.MultiReader(bytes.NewReader(head), h), rel)
	default:
		res, err = numberedWindow(io.MultiReader(bytes.NewReader(head), h), rel, in)
	}
	if err == nil {
		h.remember(call.Files, rel)
		if window != nil && mt == "" && len(res.Content) == 1 && res.Content[0].Type == api.TypeText {
			call.Files.RememberWindow(rel, *window)
		}
	}
	return res, err
}

// readWindow is the window a read with in.Unchanged shows of the file
// whose Stat on opening said info (nil without it), and whether the
// session read that window last with the file as it is now.
func readWindow(call *tool.Call, rel string, info fs.FileInfo, in *ReadLinesInput) (*tool.ReadWindow, bool) {
	if !in.Unchanged {
		return nil, false
	}
	w := tool.ReadWindow{Offset: max(in.Offset, 1), Limit: in.Limit, ModTime: info.ModTime()}
	return &w, call.Files.ReadBefore(rel, w)
}

// numberedWindow renders lines offset..offset+limit-1 as `cat -n` does:
// the number right-aligned in six columns, a tab, the line.
func numberedWindow(r io.Reader, rel string, in *ReadLinesInput) (tool.Result, error) {
	start, limit := max(in.Offset, 1), in.Limit
	if in.Split {
		return splitWindow(r, rel, start, limit)
	}
	if limit == 0 {
		limit = readLinesDefault
	}
	br := bufio.NewReaderSize(r, 64<<10)
	var b strings.Builder
	line, last, more := 0, 0, false
	for {
		text, err := br.ReadString('\n')
		if text == "" && err != nil {
			if err != io.EOF {
				return tool.Result{}, fileError(rel, err)
			}
			break
		}
		line++
		if line < start {
			continue
		}
		if line >= start+limit || b.Len() > readLinesBytes {
			more = true
			break
		}
		text = strings.TrimSuffix(strings.TrimSuffix(text, "\n"), "\r")
		if len(text) > readLineMaxChars {
			text = CutChars(text, readLineMaxChars)
		}
		fmt.Fprintf(&b, "%6d\t%s\n", line, text)
		last = line
	}
	switch {
	case line == 0:
		return tool.TextResult("<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>"), nil
	case line < start:
		return tool.TextResult(fmt.Sprintf("<system-reminder>Warning: the file exists but is shorter than the provided offset (%d). "+
			"The file has %d lines.</system-reminder>", start, line)), nil
	}
	text := b.String()
	if more {
		text += fmt.Sprintf("\n[Showing lines %d-%d. Read on with offset=%d.]", start, last, last+1)
	}
	return tool.TextResult(text), nil
}

// CutChars cuts s to at most n characters as Claude Code counts them: it
// is JavaScript, whose string length counts UTF-16 code units, so a
// character beyond the Basic Multilingual Plane counts two. A character
// is never split, and a line of n characters or fewer is kept whole
// however many bytes it takes.
func CutChars(s string, n int) string {
	if len(s) <= n {
		return s // n bytes hold at most n characters
	}
	units := 0
	for i, r := range s {
		w := utf16.RuneLen(r)
		if w < 0 {
			w = 1 // invalid UTF-8: one U+FFFD
		}
		if units+w > n {
			return s[:i]
		}
		units += w
	}
	return s
}

// notebook is the part of a Jupyter notebook (.ipynb) that is shown.
type notebook struct {
	Cells []notebookCell `json:"cells"`
}

type notebookCell struct {
	ID       string            `json:"id,omitempty"`
	CellType string            `json:"cell_type"`
	Source   notebookText      `json:"source"`
	Outputs  []json.RawMessage `json:"outputs,omitempty"`
}

// notebookText is a cell's source or an output's text: a string or a
// list of lines.
type notebookText string

func (t *notebookText) UnmarshalJSON(b []byte) error {
	var lines []string
	if err := json.Unmarshal(b, &lines); err == nil {
		*t = notebookText(strings.Join(lines, ""))
		return nil
	}
	var s string
	err := json.Unmarshal(b, &s)
	*t = notebookText(s)
	return err
}

// maxNotebookBytes bounds a notebook read whole.
const maxNotebookBytes = maxEditBytes

// readNotebook shows a notebook as its cells, each with its id, type,
// source and text outputs, as Claude Code's Read shows notebooks.
func readNotebook(r io.Reader, rel string) (tool.Result, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxNotebookBytes+1))
	if err != nil {
		return tool.Result{}, fileError(rel, err)
	}
	if len(data) > maxNotebookBytes {
		return tool.Result{}, tooLarge(rel, int64(len(data)))
	}
	var nb notebook
	if err := json.Unmarshal(data, &nb); err != nil {
		return tool.Result{}, tool.Errorf(api.ToolCodeInvalidNotebook, "%s is not a valid Jupyter notebook: %v", rel, err)
	}
	// Claude Code 2.1's form, as the conformance harness records it: a
	// part for each cell (id, type unless code, source) and one for each
	// text output after it (a newline, then the text), joined by newlines.
	var parts []string
	for i, c := range nb.Cells {
		id := cellID(c, i)
		typ := ""
		if c.CellType != "code" {
			typ = "<cell_type>" + c.CellType + "</cell_type>"
		}
		parts = append(parts, fmt.Sprintf("<cell id=%q>%s%s</cell id=%q>", id, typ, c.Source, id))
		for _, o := range c.Outputs {
			if text := outputText(o); text != "" {
				parts = append(parts, "\n"+text)
			}
		}
	}
	if len(nb.Cells) == 0 {
		return tool.TextResult("<system-reminder>Warning: the notebook has no cells.</system-reminder>"), nil
	}
	return tool.TextResult(strings.Join(parts, "\n")), nil
}

// cellID is a cell's id, or "cell-N" for notebooks (nbformat < 4.5) whose
// cells have none, as Claude Code names them.
func cellID(c notebookCell, i int) string {
	if c.ID != "" {
		return c.ID
	}
	return fmt.Sprintf("cell-%d", i)
}

// outputText is the text of a stream, result or error output.
func outputText(raw json.RawMessage) string {
	var o struct {
		Text   notebookText            `json:"text"`
		Data   map[string]notebookText `json:"data"`
		Ename  string                  `json:"ename"`
		Evalue string                  `json:"evalue"`
	}
	if json.Unmarshal(raw, &o) != nil {
		return ""
	}
	switch {
	case o.Text != "":
		return string(o.Text)
	case o.Data["text/plain"] != "":
		return string(o.Data["text/plain"])
	case o.Ename != "":
		return o.Ename + ": " + o.Evalue
	}
	return ""
}
