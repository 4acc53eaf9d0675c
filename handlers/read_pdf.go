package handlers

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// maxPDFDocumentBytes bounds a PDF sent whole as a document block, as
// Claude Code 2.1 bounds it (20 MB).
const maxPDFDocumentBytes = 20 << 20

// readPDFDocument answers a read of a whole PDF as Claude Code 2.1's Read
// does: a line naming the file and its size, and the file itself as a
// document block the model reads (the Messages API takes PDFs in
// tool_result content).
func readPDFDocument(r io.Reader, call *tool.Call, rel string, head []byte) (tool.Result, error) {
	abs := filepath.Join(call.Workspace.Dir, filepath.FromSlash(rel))
	if !bytes.HasPrefix(head, []byte("%PDF-")) {
		if len(head) == 0 {
			return tool.Result{}, tool.Errorf(api.ToolCodeInvalidType, "PDF file is empty: %s", abs)
		}
		return tool.Result{}, tool.Errorf(api.ToolCodeInvalidType, "File is not a valid PDF (missing %%PDF- header): %s", abs)
	}
	data, err := io.ReadAll(io.LimitReader(r, maxPDFDocumentBytes+1))
	if err != nil {
		return tool.Result{}, fileError(rel, err)
	}
	if len(data) > maxPDFDocumentBytes {
		return tool.Result{}, tool.Errorf(api.ToolCodeTooLarge, "PDF file exceeds maximum allowed size of 20MB.")
	}
	return tool.Result{Content: []api.Content{
		api.TextContent(fmt.Sprintf("PDF file read: %s (%s)", abs, jsSize(len(data)))),
		{Type: api.TypeDocument, Source: &api.ImageSource{Type: "base64", MediaType: "application/pdf",
			Data: base64.StdEncoding.EncodeToString(data)}},
	}}, nil
}

// jsSize words a byte count as Claude Code does: bytes under a KB, else
// KB, MB or GB with one decimal, a trailing ".0" dropped.
func jsSize(n int) string {
	v := float64(n) / 1024
	if v < 1 {
		return strconv.Itoa(n) + " bytes"
	}
	for _, unit := range []string{"KB", "MB", "GB"} {
		if v < 1024 || unit == "GB" {
			// JavaScript's toFixed rounds a tie up; v*10 is exact here.
			return strings.TrimSuffix(strconv.FormatFloat(math.Floor(v*10+0.5)/10, 'f', 1, 64), ".0") + unit
		}
		v /= 1024
	}
	return ""
}
