package handlers

import (
	"archive/zip"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/ledongthuc/pdf"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// Cline's read_file reads some formats as the text inside them rather than
// as their bytes (apps/vscode/src/integrations/misc/extract-text.ts,
// callTextExtractionFunctions, v4.0.12), chosen by the file's extension:
// .pdf through pdf-parse, .docx through mammoth's extractRawText, .ipynb
// through sanitizeNotebookForLLM. The text then gets line numbers like any
// other file's.

// maxDocumentTextBytes bounds the text taken out of one document (and the
// XML a .docx may inflate to), so a small zip bomb cannot fill memory; a
// read shows at most 400 KB of it anyway.
const maxDocumentTextBytes = 64 << 20

// documentExtractor returns the function that takes the text out of a file
// with rel's extension, or nil when the file is read as it is.
func documentExtractor(texts tool.Texts, rel string) func(f *os.File, size int64) (string, error) {
	switch strings.ToLower(path.Ext(rel)) {
	case ".pdf":
		return pdfText
	case ".docx":
		return docxText
	case ".ipynb":
		return func(f *os.File, size int64) (string, error) { return notebookFileText(texts, f, size) }
	}
	return nil
}

// readDocument reads a document's text (st is f's Stat on opening) and
// answers with the window of it in asks for, in Cline's numbered format.
func readDocument(f *os.File, rel string, st fs.FileInfo, in *ReadFileInput, extract func(*os.File, int64) (string, error)) (string, error) {
	text, err := extract(f, st.Size())
	if err != nil {
		var te *tool.ToolError
		if errors.As(err, &te) {
			return "", err
		}
		return "", tool.Errorf(api.ToolCodeInvalidDocument, "Cannot extract the text of %s: %v", rel, err)
	}
	out, err := readTextWindow(strings.NewReader(text), in, int64(len(text)))
	if err != nil {
		return "", fileError(rel, err)
	}
	return out, nil
}

// notebookFileText is extractTextFromIPYNB: the notebook as the
// dialect shows it (tool.Texts.Notebook).
func notebookFileText(texts tool.Texts, f *os.File, size int64) (string, error) {
	if size > maxNotebookBytes {
		return "", tool.Errorf(api.ToolCodeTooLarge, "The notebook is larger than %d MB.", maxNotebookBytes>>20)
	}
	data, err := io.ReadAll(io.NewSectionReader(f, 0, size))
	if err != nil {
		return "", err
	}
	return texts.Notebook(data), nil
}

// pdfText is pdf-parse's text: each page's (pdfPageText) preceded by a
// blank line ("\n\n"), the first one included.
func pdfText(f *os.File, size int64) (text string, err error) {
	// The PDF reader panics on some malformed files; that is a bad file,
	// not a crash.
	defer func() {
		if r := recover(); r != nil {
			text, err = "", fmt.Errorf("malformed PDF: %v", r)
		}
	}()
	r, err := pdf.NewReader(f, size)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for i := 1; i <= r.NumPage(); i++ {
		p := r.Page(i)
		if p.V.IsNull() {
			break
		}
		b.WriteString("\n\n")
		b.WriteString(pdfPageText(p))
		if b.Len() > maxDocumentTextBytes {
			return "", tool.Errorf(api.ToolCodeTooLarge, "The text of the PDF is larger than %d MB.", maxDocumentTextBytes>>20)
		}
	}
	return b.String(), nil
}

// Namespaces of WordprocessingML's elements, transitional and strict.
const (
	wordNS       = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
	wordStrictNS = "http://purl.oclc.org/ooxml/wordprocessingml/main"
	markupCompat = "http://schemas.openxmlformats.org/markup-compatibility/2006"
)

// docxText is mammoth's extractRawText (lib/raw-text.js): the text of the
// document body's runs, a tab as "\t", each paragraph followed by a blank
// line; of alternate content only the fallback is read, as mammoth does.
// A line break (w:br, w:cr) becomes "\n", where mammoth's raw text drops
// it and joins the two lines.
func docxText(f *os.File, size int64) (string, error) {
	zr, err := zip.NewReader(f, size)
	if err != nil {
		return "", fmt.Errorf("not a .docx (zip) file: %v", err)
	}
	name := docxMainPart(zr)
	var part *zip.File
	for _, zf := range zr.File {
		if zf.Name == name {
			part = zf
		}
	}
	if part == nil {
		return "", fmt.Errorf("the document has no %s", name)
	}
	rc, err := part.Open()
	if err != nil {
		return "", err
	}
	defer rc.Close()
	dec := xml.NewDecoder(io.LimitReader(rc, maxDocumentTextBytes))
	var b strings.Builder
	inText, skip := false, 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", fmt.Errorf("%s: %v", name, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch {
			case skip > 0 || t.Name.Space == markupCompat && t.Name.Local == "Choice",
				isWordElement(t.Name, "pPr"), isWordElement(t.Name, "rPr"), isWordElement(t.Name, "sectPr"):
				// Properties hold no text (their w:tab elements are tab
				// stops, not tabs).
				skip++
			case isWordElement(t.Name, "t"):
				inText = true
			case isWordElement(t.Name, "tab"):
				b.WriteByte('\t')
			case isWordElement(t.Name, "br"), isWordElement(t.Name, "cr"):
				b.WriteByte('\n')
			}
		case xml.EndElement:
			switch {
			case skip > 0:
				skip--
			case isWordElement(t.Name, "t"):
				inText = false
			case isWordElement(t.Name, "p"):
				b.WriteString("\n\n")
			}
		case xml.CharData:
			if inText && skip == 0 {
				b.Write(t)
			}
		}
	}
	return b.String(), nil
}

func isWordElement(n xml.Name, local string) bool {
	return n.Local == local && (n.Space == wordNS || n.Space == wordStrictNS)
}

// docxMainPart is the document part the package's relationships name
// (_rels/.rels, type officeDocument), word/document.xml by default.
func docxMainPart(zr *zip.Reader) string {
	const fallback = "word/document.xml"
	for _, zf := range zr.File {
		if zf.Name != "_rels/.rels" {
			continue
		}
		rc, err := zf.Open()
		if err != nil {
			return fallback
		}
		defer rc.Close()
		var rels struct {
			Rel []struct {
				Type   string `xml:"Type,attr"`
				Target string `xml:"Target,attr"`
			} `xml:"Relationship"`
		}
		if xml.NewDecoder(io.LimitReader(rc, 1<<20)).Decode(&rels) != nil {
			return fallback
		}
		for _, r := range rels.Rel {
			if strings.HasSuffix(r.Type, "/officeDocument") && r.Target != "" {
				return strings.TrimPrefix(path.Clean("/"+r.Target), "/")
			}
		}
	}
	return fallback
}
