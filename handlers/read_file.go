package handlers

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// ReadFileInput is read_file's input.
type ReadFileInput struct {
	Path      string `json:"path" validate:"required" jsonschema:"path of the file, relative to the workspace"`
	StartLine int    `json:"start_line,omitempty" jsonschema:"first line to read, 1-based (default 1)"`
	EndLine   int    `json:"end_line,omitempty" jsonschema:"last line to read, inclusive (default: 1000 lines from start_line); below start_line the two are swapped"`
}

// Limits of one read_file answer.
const (
	readWindowLines = 1000
	readWindowBytes = 400 << 10
	maxImageBytes   = 5 << 20
)

func newReadFile(name string, env tool.Env) *tool.Tool {
	return tool.NewTool(tool.Spec[ReadFileInput]{
		Name: name,
		Description: "Read a file in the workspace. Text comes back as is, at most 1000 lines or 400 KB at a time " +
			"(use start_line and end_line to read further); PNG, JPEG, GIF and WebP images come back as images; " +
			"PDF and Word (.docx) files come back as their text, Jupyter notebooks (.ipynb) without their outputs.",
		Run:             readFile,
		ConcurrencySafe: func(*ReadFileInput) bool { return true },
		CountsReads:     true,
		Paths:           func(in *ReadFileInput) []string { return []string{in.Path} },
	})
}

// readFile is read_file's Run. Its failures start as Cline's do
// (ReadFileToolHandler.execute): "Error reading file: ...".
func readFile(ctx context.Context, call *tool.Call, in *ReadFileInput) (tool.Result, error) {
	res, err := readFileContent(ctx, call, in)
	if err == nil {
		// Before the errors.As below, whose target would escape to the
		// heap on every call.
		return res, nil
	}
	var te *tool.ToolError
	if errors.As(err, &te) && !strings.HasPrefix(te.Message, "Error reading file:") {
		msg := te.Message
		switch te.Code {
		case api.ToolCodeIsDirectory:
			// Node's error for reading a directory, as Cline reports it.
			msg = "EISDIR: illegal operation on a directory, read"
		case api.ToolCodeNotFound:
			// Cline names the missing file by its absolute path, inside
			// the workspace its system prompt already names.
			if rel, rerr := call.Workspace.Rel(in.Path); rerr == nil && !strings.Contains(msg, "(") {
				msg = "File not found: " + filepath.Join(call.Workspace.Dir, filepath.FromSlash(rel))
			}
		}
		err = &tool.ToolError{Code: te.Code, Message: "Error reading file: " + msg}
	}
	return res, err
}

func readFileContent(ctx context.Context, call *tool.Call, in *ReadFileInput) (tool.Result, error) {
	rel, err := call.Workspace.Rel(in.Path)
	if err != nil {
		return tool.Result{}, err
	}
	// A document's text is extracted from an *os.File (its reader needs
	// ReadAt); text and images are only read through.
	var f readable
	var st fs.FileInfo
	extract := documentExtractor(call.Texts, rel)
	if extract != nil {
		f, st, err = openRegularAt(call, rel)
	} else {
		f, st, err = openReadable(call, rel)
	}
	if err != nil {
		return tool.Result{}, err
	}
	// Nothing needs the file closed before the answer is sent.
	defer call.CloseAfterAnswer(f)
	// Cline's note on a file read again, from the read count of the file
	// as it was opened; asked only once the read has succeeded.
	note := func() string {
		if call.Files == nil { // no memory of reads: nothing to count
			return ""
		}
		return call.Texts.RepeatedRead(in.Path, call.Files.CountRead(ctx, call.ReadTurn, call.Texts.ReadKey(rel), st.ModTime()))
	}
	return readOpenFile(call, in, rel, f, st, extract, note)
}

// prefixResult puts note before a result, on a line of its own as Cline's
// buildReadResponse does ("prefix\ntext"); before an image it is a block
// of its own. An empty note leaves the result as it is.
func prefixResult(res tool.Result, note string) tool.Result {
	if note == "" {
		return res
	}
	if len(res.Content) > 0 && res.Content[0].Type == api.TypeText {
		c := slices.Clone(res.Content)
		c[0].Text = note + "\n" + c[0].Text
		res.Content = c
		return res
	}
	res.Content = append([]api.Content{api.TextContent(note)}, res.Content...)
	return res
}

// readOpenFile reads f, whose Stat on opening said st, into read_file's
// answer, headed by what note returns once the read has succeeded and the
// session remembers what it saw. extract, when not nil, takes a
// document's text out of f, then an *os.File.
func readOpenFile(call *tool.Call, in *ReadFileInput, rel string, f readable, st fs.FileInfo,
	extract func(*os.File, int64) (string, error), note func() string) (tool.Result, error) {
	// Everything read goes through the hash, so the session can remember
	// what it saw of the file for the stale-file guard. One buffered
	// reader serves the sniff and the lines: a small file is read in one
	// system call.
	h := newStateHasher(f, st)
	defer h.release()
	br := lineReaders.Get().(*bufio.Reader)
	br.Reset(h)
	defer func() { br.Reset(nil); lineReaders.Put(br) }()
	head, err := br.Peek(512)
	if err != nil && err != io.EOF {
		return tool.Result{}, fileError(rel, err)
	}
	if extract != nil {
		of, ok := f.(*os.File)
		if !ok {
			return tool.Result{}, tool.Errorf(api.ToolCodeIOError, "Cannot extract the text of %s: not opened as a document.", rel)
		}
		text, err := readDocument(of, rel, st, in, extract)
		if err != nil {
			return tool.Result{}, err
		}
		h.remember(call.Files, rel)
		return prefixResult(tool.TextResult(text), note()), nil
	}
	mt := imageType(head)
	if mt == "" && isBinary(head) {
		return tool.Result{}, tool.Errorf(api.ToolCodeBinaryFile, "Cannot read %s: it is a binary file, not text.", rel)
	}
	if mt != "" {
		res, err := readImage(br, rel, nil, mt)
		if err != nil {
			return res, err
		}
		// Cline's ReadFileToolHandler answers an image with the image and
		// this text after it.
		res.Content = append(res.Content, api.TextContent("Successfully read image"))
		h.remember(call.Files, rel)
		return prefixResult(res, note()), nil
	}
	if h.eof {
		// The first fill read the whole file: a window that shows all
		// of it is made from the reader's buffer, straight into the
		// answer's one allocation.
		data, _ := br.Peek(br.Buffered())
		if w, ok := wholeWindowOf(data, in); ok {
			h.remember(call.Files, rel)
			return tool.TextResult(w.text(note(), data)), nil
		}
	}
	// The lines gather in a recycled buffer; the answer, the note and
	// the lines, is then made in one allocation.
	buf := textBuffers.Get().(*[]byte)
	defer func() {
		if cap(*buf) <= maxPooledText {
			textBuffers.Put(buf)
		}
	}()
	lines, err := appendLines((*buf)[:0], br, in)
	*buf = lines[:0]
	if err != nil {
		return tool.TextResult(""), fileError(rel, err)
	}
	h.remember(call.Files, rel)
	n := note()
	if n == "" {
		return tool.TextResult(string(lines)), nil
	}
	var text strings.Builder
	text.Grow(len(n) + 1 + len(lines))
	text.WriteString(n)
	text.WriteByte('\n')
	text.Write(lines)
	return tool.TextResult(text.String()), nil
}

// textBuffers recycles the buffers read_file gathers lines in; one that
// grew past maxPooledText (a big window) is left to the collector.
var textBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 8<<10); return &b }}

const maxPooledText = 64 << 10

// lineReaders recycles the 64 KiB line readers of text windows: allocating
// and clearing one per call was most of a small read's cost
// (BenchmarkReadFileRecord, BenchmarkToolUseVsBare; docs/benchmarks.md).
var lineReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 64<<10) }}

// imageType names the image formats returned as image blocks. Only a
// head starting as one of their signatures does (GIF, RIFF for WebP,
// PNG, JPEG) is sniffed: those signatures are exact, at the first byte,
// so any other head sniffs as something else, and a text file is spared
// net/http's whole table.
func imageType(head []byte) string {
	if len(head) == 0 || head[0] != 'G' && head[0] != 'R' && head[0] != 0x89 && head[0] != 0xFF {
		return ""
	}
	switch mt := http.DetectContentType(head); mt {
	case "image/png", "image/jpeg", "image/gif", "image/webp":
		return mt
	}
	return ""
}

// isBinary follows git and ripgrep: a NUL byte in the first bytes, or bytes
// that are not UTF-8, mean binary.
func isBinary(head []byte) bool {
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	// A multi-byte rune may be cut at the end of the sample.
	for len(head) > 0 && !utf8.Valid(head) {
		r, size := utf8.DecodeLastRune(head)
		if r != utf8.RuneError || size != 1 || len(head) < 4 {
			return true
		}
		head = head[:len(head)-1]
		if utf8.Valid(head) {
			return false
		}
	}
	return false
}

func readImage(f io.Reader, rel string, head []byte, mediaType string) (tool.Result, error) {
	rest, err := io.ReadAll(io.LimitReader(f, maxImageBytes+1))
	if err != nil {
		return tool.Result{}, fileError(rel, err)
	}
	data := rest
	if len(head) > 0 {
		data = append(head, rest...)
	}
	if len(data) > maxImageBytes {
		return tool.Result{}, tool.Errorf(api.ToolCodeTooLarge, "Image %s is larger than %d MB.", rel, maxImageBytes>>20)
	}
	return tool.Result{Content: []api.Content{{
		Type:   api.TypeImage,
		Source: &api.ImageSource{Type: "base64", MediaType: mediaType, Data: base64.StdEncoding.EncodeToString(data)},
	}}}, nil
}

// readTextWindow answers in Cline's format (ReadFileToolHandler.ts,
// formatFileContentWithLineNumbers): the lines labelled "N | text", CRLF
// read as LF, then "(File has N lines total.)" or, when lines are left,
// "(Showing lines A-B of N total. Use start_line=B+1 to continue
// reading.)". As in Cline, a start below 1 is 1 and an end below the start
// swaps the two. Where Cline cuts the whole file at 400 KB and can never
// show what lies beyond, the window here stops at 400 KB of lines and the
// same note says where to read on. It streams, so huge files cost only the
// window (the rest is only counted).
//
// size is about how many bytes r holds: the answer to a small file is
// allocated once, with room for the line numbers, rather than grown by
// doubling (a big file's window may be a small part of it, so its answer
// still grows).
func readTextWindow(r io.Reader, in *ReadFileInput, size int64) (string, error) {
	sc := lineReaders.Get().(*bufio.Reader)
	sc.Reset(r)
	defer func() { sc.Reset(nil); lineReaders.Put(sc) }()
	var b []byte
	if in.StartLine <= 1 {
		// Line numbers add "N | " to each line: half again covers lines
		// of 10 bytes and more.
		b = make([]byte, 0, min(size+size/2+64, 64<<10))
	}
	b, err := appendLines(b, sc, in)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// appendLines appends readTextWindow's answer for the lines of sc to b.
func appendLines(b []byte, sc *bufio.Reader, in *ReadFileInput) ([]byte, error) {
	start, end := lineRange(in.StartLine, in.EndLine)
	base := len(b)
	var label [20]byte // a line's number, formatted
	var long []byte    // a line longer than the reader's buffer, gathered
	line, last := 0, start-1
	for {
		// ReadSlice, not ReadString: no allocation per line, the line is
		// copied once, into the answer.
		text, err := sc.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long, text...)
			continue
		}
		if len(long) > 0 {
			long = append(long, text...)
			text = long
		}
		if len(text) == 0 && err != nil {
			if err != io.EOF {
				return b, err
			}
			break
		}
		line++
		long = long[:0]
		if line < start {
			continue
		}
		text = bytes.TrimSuffix(bytes.TrimSuffix(text, []byte("\n")), []byte("\r"))
		num := strconv.AppendInt(label[:0], int64(line), 10)
		entry := len(num) + len(" | ") + len(text)
		if line > end || len(b)-base+entry > readWindowBytes && last >= start {
			// The window is full: only count what is left.
			n, err := countRemainingLines(sc)
			if err != nil {
				return b, err
			}
			line += n
			break
		}
		if len(b) > base {
			b = append(b, '\n')
		}
		b = append(b, num...)
		b = append(b, " | "...)
		b = append(b, text...)
		last = line
	}
	if line == 0 {
		return b, nil
	}
	if last < line {
		if last < start {
			// Past the end: nothing shown, as Cline shows nothing.
			return appendTotal(b[:base], line), nil
		}
		return fmt.Appendf(b, "\n\n(Showing lines %d-%d of %d total. Use start_line=%d to continue reading.)", start, last, line, last+1), nil
	}
	return appendTotal(b, line), nil
}

// appendTotal appends Cline's note after a window that reaches the end
// of a file of n lines.
func appendTotal(b []byte, n int) []byte {
	b = append(b, "\n\n(File has "...)
	b = strconv.AppendInt(b, int64(n), 10)
	return append(b, " lines total.)"...)
}

// lineRange is Cline's reading of start_line and end_line
// (getDisplayedLineSlice): absent start is 1, absent end is 1000 lines on,
// values below 1 are 1, and an end below the start swaps them.
func lineRange(startLine, endLine int) (int, int) {
	start := max(1, startLine)
	if endLine == 0 {
		return start, start + readWindowLines - 1
	}
	end := max(1, endLine)
	if end < start {
		start, end = end, start
	}
	return start, end
}

// countRemainingLines counts the lines left in r: its newlines, plus a last line
// that has none.
func countRemainingLines(r *bufio.Reader) (int, error) {
	n, last := 0, byte('\n')
	buf := make([]byte, 32<<10)
	for {
		k, err := r.Read(buf)
		if k > 0 {
			n += bytes.Count(buf[:k], []byte{'\n'})
			last = buf[k-1]
		}
		if err == io.EOF {
			if last != '\n' {
				n++
			}
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}
