package handlers

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
)

// ReadFileInput is read_file's input.
type ReadFileInput struct {
	Path      string `json:"path" validate:"required" jsonschema:"path of the file, relative to the workspace"`
	StartLine int    `json:"start_line,omitempty" validate:"omitempty,min=1" jsonschema:"first line to read, 1-based (default 1)"`
	EndLine   int    `json:"end_line,omitempty" validate:"omitempty,min=1,gtefield=StartLine" jsonschema:"last line to read, inclusive (default: 1000 lines from start_line)"`
}

// Limits of one read_file answer.
const (
	readWindowLines = 1000
	readWindowBytes = 400 << 10
	maxImageBytes   = 5 << 20
)

func newReadFile(name string, env coordinator.ToolEnv) *coordinator.Tool {
	return coordinator.NewTool(coordinator.Spec[ReadFileInput]{
		Name: name,
		Description: "Read a file in the workspace. Text comes back as is, at most 1000 lines or 400 KB at a time " +
			"(use start_line and end_line to read further); PNG, JPEG, GIF and WebP images come back as images.",
		Run:             readFile,
		ConcurrencySafe: func(*ReadFileInput) bool { return true },
		Paths:           func(in *ReadFileInput) []string { return []string{in.Path} },
	})
}

func readFile(ctx context.Context, call *coordinator.Call, in *ReadFileInput) (coordinator.Result, error) {
	rel, f, err := openRegular(call.Workspace, in.Path)
	if err != nil {
		return coordinator.Result{}, err
	}
	defer f.Close()
	// Everything read goes through the hash, so the session can remember
	// what it saw of the file for the stale-file guard.
	h := newStateHasher(f)
	head := make([]byte, 512)
	n, err := io.ReadFull(h, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return coordinator.Result{}, fileError(rel, err)
	}
	head = head[:n]
	if isBinary(head) && imageType(head) == "" {
		return coordinator.Result{}, coordinator.Errorf(api.ToolCodeBinaryFile, "Cannot read %s: it is a binary file, not text.", rel)
	}
	var res coordinator.Result
	if mt := imageType(head); mt != "" {
		res, err = readImage(h, rel, head, mt)
	} else {
		res, err = readTextWindow(io.MultiReader(bytes.NewReader(head), h), rel, in)
	}
	if err == nil {
		h.remember(call.Files, rel)
	}
	return res, err
}

// lineReaders recycles the 64 KiB line readers of text windows: allocating
// and clearing one per call was most of a small read's cost.
var lineReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 64<<10) }}

// imageType names the image formats returned as image blocks.
func imageType(head []byte) string {
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

func readImage(f io.Reader, rel string, head []byte, mediaType string) (coordinator.Result, error) {
	rest, err := io.ReadAll(io.LimitReader(f, maxImageBytes+1))
	if err != nil {
		return coordinator.Result{}, fileError(rel, err)
	}
	data := append(head, rest...)
	if len(data) > maxImageBytes {
		return coordinator.Result{}, coordinator.Errorf(api.ToolCodeTooLarge, "Image %s is larger than %d MB.", rel, maxImageBytes>>20)
	}
	return coordinator.Result{Content: []api.Content{{
		Type:   api.TypeImage,
		Source: &api.ImageSource{Type: "base64", MediaType: mediaType, Data: base64.StdEncoding.EncodeToString(data)},
	}}}, nil
}

// readTextWindow returns lines start..end of r, cut at the window limits,
// with a note saying how to read on. It streams, so huge files cost only
// the window.
func readTextWindow(r io.Reader, rel string, in *ReadFileInput) (coordinator.Result, error) {
	start := max(in.StartLine, 1)
	end := in.EndLine
	// A range the caller chose needs no "read on" note when it is served
	// whole; one the window limits cut does.
	chosen := end != 0 && end-start+1 <= readWindowLines
	if !chosen {
		end = start + readWindowLines - 1
	}
	sc := lineReaders.Get().(*bufio.Reader)
	sc.Reset(r)
	defer func() { sc.Reset(nil); lineReaders.Put(sc) }()
	var b strings.Builder
	line, last, more := 0, 0, false
	for {
		text, err := sc.ReadString('\n')
		if text == "" && err != nil {
			if err != io.EOF {
				return coordinator.Result{}, fileError(rel, err)
			}
			break
		}
		line++
		if line < start {
			continue
		}
		if line > end {
			more = !chosen
			break
		}
		if b.Len()+len(text) > readWindowBytes {
			more = true
			break
		}
		b.WriteString(text)
		last = line
	}
	if line < start && start > 1 {
		return coordinator.Result{}, coordinator.Errorf(api.ToolCodeOutOfRange, "%s has %d lines; start_line %d is past the end.", rel, line, start)
	}
	text := b.String()
	if line == 0 {
		return coordinator.TextResult("(the file is empty)"), nil
	}
	if more {
		text += fmt.Sprintf("\n\n[Showing lines %d-%d of %s. Read on with start_line=%d.]", start, last, rel, last+1)
	}
	return coordinator.TextResult(text), nil
}
