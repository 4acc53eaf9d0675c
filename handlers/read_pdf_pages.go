package handlers

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// PDF pages are rendered as Claude Code 2.1's Read renders them: poppler's
// pdftoppm, JPEG at 100 dpi, at most maxPDFPages a call. The file goes to
// pdftoppm as its standard input, opened through the workspace root, so
// no path is resolved twice; pdftoppm runs outside the command sandbox,
// as in Claude Code, with a time limit.
const (
	maxPDFPages       = 20
	pdfRenderTimeout  = 2 * time.Minute
	maxPDFRenderBytes = 100 << 20
)

// PDFPages is a pages parameter read: the first and last page, last 0
// for "to the end".
type PDFPages struct{ First, Last int }

// ParsePDFPages reads "3", "1-5" or "10-" as Claude Code does; ok is false
// for anything else (pages are 1-based, a range may not run backwards).
func ParsePDFPages(s string) (PDFPages, bool) {
	s = strings.TrimSpace(s)
	first, last, isRange := strings.Cut(s, "-")
	f, err := strconv.Atoi(first)
	if s == "" || err != nil || f < 1 {
		return PDFPages{}, false
	}
	switch {
	case !isRange:
		return PDFPages{f, f}, true
	case last == "":
		return PDFPages{f, 0}, true
	}
	l, err := strconv.Atoi(last)
	if err != nil || l < f {
		return PDFPages{}, false
	}
	return PDFPages{f, l}, true
}

// Count is how many pages the range names, maxPDFPages+1 for an open one.
func (p PDFPages) Count() int {
	if p.Last == 0 {
		return maxPDFPages + 1
	}
	return p.Last - p.First + 1
}

// pdftoppmMissing is Claude Code's answer when poppler is not installed.
const pdftoppmMissing = "pdftoppm is not installed. Install poppler-utils (e.g. `brew install poppler` or " +
	"`apt-get install poppler-utils`) to enable PDF page rendering."

// readPDFPages renders the pages of the open PDF f and answers with a
// line naming them and each page as a JPEG image.
func readPDFPages(ctx context.Context, call *tool.Call, f *os.File, rel, pages string) (tool.Result, error) {
	abs := filepath.Join(call.Workspace.Dir, filepath.FromSlash(rel))
	p, ok := ParsePDFPages(pages)
	if !ok {
		return tool.Result{}, tool.Errorf(api.ToolCodeInvalid, "Invalid pages parameter: %q.", pages)
	}
	bin, err := exec.LookPath("pdftoppm")
	if err != nil {
		return tool.Result{}, tool.Errorf(api.ToolCodeUnavailable, "%s", pdftoppmMissing)
	}
	info, err := f.Stat()
	if err != nil {
		return tool.Result{}, fileError(rel, err)
	}
	if info.Size() == 0 {
		return tool.Result{}, tool.Errorf(api.ToolCodeInvalidType, "PDF file is empty: %s", abs)
	}
	dir, err := os.MkdirTemp("", "toolgate-pdf-")
	if err != nil {
		return tool.Result{}, tool.Errorf(api.ToolCodeIOError, "cannot make a directory for the pages: %v", err)
	}
	defer os.RemoveAll(dir)
	args := []string{"-jpeg", "-r", "100", "-f", strconv.Itoa(p.First)}
	if p.Last > 0 {
		args = append(args, "-l", strconv.Itoa(p.Last))
	}
	ctx, cancel := context.WithTimeout(ctx, pdfRenderTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append(args, "/dev/stdin", filepath.Join(dir, "page"))...)
	cmd.Stdin, cmd.Env = f, []string{"PATH=" + os.Getenv("PATH")}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return tool.Result{}, tool.Errorf(api.ToolCodeFailed, "pdftoppm failed: %s", msg)
		}
		return tool.Result{}, tool.Errorf(api.ToolCodeFailed, "pdftoppm failed: %v", err)
	}
	return pageImages(dir, abs, info.Size())
}

// pageImages reads the JPEGs pdftoppm wrote, in page order.
func pageImages(dir, abs string, size int64) (tool.Result, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return tool.Result{}, tool.Errorf(api.ToolCodeIOError, "cannot read the rendered pages: %v", err)
	}
	var names []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".jpg") {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	if len(names) == 0 {
		return tool.Result{}, tool.Errorf(api.ToolCodeFailed, "pdftoppm produced no output pages. The PDF may be invalid.")
	}
	res := tool.Result{Content: []api.Content{api.TextContent(fmt.Sprintf("PDF pages extracted: %d page(s) from %s (%s)", len(names), abs, jsSize(int(size))))}}
	total := 0
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			return tool.Result{}, tool.Errorf(api.ToolCodeIOError, "cannot read a rendered page: %v", err)
		}
		if total += len(data); total > maxPDFRenderBytes {
			return tool.Result{}, tool.Errorf(api.ToolCodeTooLarge, "The rendered pages exceed %d MB; ask for fewer pages.", maxPDFRenderBytes>>20)
		}
		res.Content = append(res.Content, api.Content{Type: api.TypeImage,
			Source: &api.ImageSource{Type: "base64", MediaType: "image/jpeg", Data: base64.StdEncoding.EncodeToString(data)}})
	}
	return res, nil
}
