package handlers

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/dialect/cline"

	"github.com/toolgate/toolgate/api"
)

// samplePDF writes a small PDF by hand: one page per entry, each line of a
// page drawn 14 points below the one before with the base Helvetica font.
func samplePDF(pages [][]string) []byte {
	streams := make([]string, len(pages))
	for i, lines := range pages {
		var content strings.Builder
		content.WriteString("BT /F1 12 Tf 14 TL 72 720 Td")
		for j, l := range lines {
			if j > 0 {
				content.WriteString(" T*")
			}
			fmt.Fprintf(&content, " (%s) Tj", l)
		}
		content.WriteString(" ET")
		streams[i] = content.String()
	}
	return pdfWithPages(streams)
}

// pdfWithPages writes a PDF whose pages draw the given content streams,
// with the base Helvetica font as /F1.
func pdfWithPages(streams []string) []byte {
	var b bytes.Buffer
	var offsets []int
	obj := func(body string) {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", len(offsets), body)
	}
	b.WriteString("%PDF-1.4\n")
	kids := make([]string, len(streams))
	for i := range streams {
		kids[i] = fmt.Sprintf("%d 0 R", 4+2*i)
	}
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	obj(fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(streams)))
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	for i, content := range streams {
		obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 5+2*i))
		obj(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content))
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, o := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, xref)
	return b.Bytes()
}

// sampleDocx writes a .docx package around body, the inside of w:body.
func sampleDocx(t *testing.T, body string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	files := []struct{ name, text string }{
		{"[Content_Types].xml", `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
			`<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>` +
			`<Default Extension="xml" ContentType="application/xml"/>` +
			`<Override PartName="/word/main.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`},
		{"_rels/.rels", `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
			`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/main.xml"/></Relationships>`},
		{"word/main.xml", `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" ` +
			`xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"><w:body>` + body + `</w:body></w:document>`},
	}
	for _, f := range files {
		w, err := zw.Create(f.name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(f.text))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestReadDocumentsAsText follows Cline's extract-text.ts
// (callTextExtractionFunctions, v4.0.12): .pdf as pdf-parse's text, .docx as
// mammoth's extractRawText, .ipynb as sanitizeNotebookForLLM(data, true),
// each then numbered by ReadFileToolHandler's formatFileContentWithLineNumbers.
func TestReadDocumentsAsText(t *testing.T) {
	f := newFixture(t)
	f.write(t, "report.pdf", string(samplePDF([][]string{{"Quarterly report", "Revenue grew"}, {"Page two"}})))
	f.write(t, "broken.pdf", "%PDF-1.4\nthis is no PDF at all\n")
	f.write(t, "letter.DOCX", string(sampleDocx(t,
		`<w:p><w:pPr><w:tabs><w:tab w:val="left" w:pos="720"/></w:tabs></w:pPr><w:r><w:rPr><w:b/></w:rPr><w:t>Dear</w:t></w:r><w:r><w:t xml:space="preserve"> reader,</w:t></w:r></w:p>`+
			`<w:p><w:r><w:t>Name</w:t><w:tab/><w:t>Value</w:t></w:r></w:p>`+
			`<w:p><w:r><w:t>first line</w:t><w:br/><w:t>second line</w:t></w:r><w:r><w:delText>deleted</w:delText></w:r></w:p>`+
			`<w:tbl><w:tr><w:tc><w:p><w:r><w:t>cell</w:t></w:r></w:p></w:tc></w:tr></w:tbl>`+
			`<w:p><mc:AlternateContent><mc:Choice Requires="wps"><w:r><w:t>choice</w:t></w:r></mc:Choice><mc:Fallback><w:r><w:t>fallback</w:t></w:r></mc:Fallback></mc:AlternateContent></w:p>`+
			`<w:sectPr><w:pgSz w:w="12240"/></w:sectPr>`)))
	f.write(t, "zip.docx", "not a zip")
	f.write(t, "notes.ipynb", `{"cells":[{"cell_type":"markdown","metadata":{},"source":["# Title"]},`+
		`{"cell_type":"code","execution_count":1,"metadata":{},"outputs":[{"output_type":"stream","text":["hi\n"]}],"source":["print('hi')"]}],`+
		`"metadata":{},"nbformat":4,"nbformat_minor":5}`)
	f.write(t, "plain.ipynb", "not json\n")

	cases := []struct {
		name, path string
		want       string
		wantErr    string
	}{
		// pdf-parse 1.1.1 render_page: a new line when the height changes,
		// "\n\n" before every page.
		{"pdf", "report.pdf", "1 | \n2 | \n3 | Quarterly report\n4 | Revenue grew\n5 | \n6 | Page two\n\n(File has 6 lines total.)", ""},
		{"broken pdf", "broken.pdf", "", "Error reading file: Cannot extract the text of broken.pdf"},
		// mammoth lib/raw-text.js: each paragraph then "\n\n", a tab "\t";
		// properties, deleted text and mc:Choice give nothing.
		{"docx", "letter.DOCX", "1 | Dear reader,\n2 | \n3 | Name\tValue\n4 | \n5 | first line\n6 | second line\n7 | \n8 | cell\n9 | \n10 | fallback\n11 | \n\n(File has 11 lines total.)", ""},
		{"not a zip", "zip.docx", "", "Error reading file: Cannot extract the text of zip.docx: not a .docx (zip) file"},
		// notebook-utils.ts: code cell outputs emptied, JSON.stringify(nb, null, 1).
		{"notebook", "notes.ipynb", "", ""},
		{"not a notebook is read as it is", "plain.ipynb", "1 | not json\n\n(File has 1 lines total.)", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, rec := f.call(t, "read_file", map[string]any{"path": c.path})
			got := text(res)
			if c.wantErr != "" {
				if !res.IsError || !strings.Contains(got, c.wantErr) || rec.Error == nil || rec.Error.Code != api.ToolCodeInvalidDocument {
					t.Fatalf("result = %q (%+v), want an %s error containing %q", got, rec.Error, api.ToolCodeInvalidDocument, c.wantErr)
				}
				return
			}
			if res.IsError {
				t.Fatalf("failed: %q", got)
			}
			if c.path == "notes.ipynb" {
				c.want = numberedLines(clineNotebookOracle(t, `{"cells":[{"cell_type":"markdown","metadata":{},"source":["# Title"]},`+
					`{"cell_type":"code","execution_count":1,"metadata":{},"outputs":[{"output_type":"stream","text":["hi\n"]}],"source":["print('hi')"]}],`+
					`"metadata":{},"nbformat":4,"nbformat_minor":5}`))
				if strings.Contains(got, "output_type") {
					t.Errorf("outputs were not stripped: %q", got)
				}
			}
			if got != c.want {
				t.Errorf("text =\n%q\nwant\n%q", got, c.want)
			}
		})
	}
}

// numberedLines is Cline's formatFileContentWithLineNumbers of a whole text.
func numberedLines(s string) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = fmt.Sprintf("%d | %s", i+1, l)
	}
	return strings.Join(lines, "\n") + fmt.Sprintf("\n\n(File has %d lines total.)", len(lines))
}

// clineNotebookOracle runs the transformation of Cline's
// sanitizeNotebookForLLM(json, true) (notebook-utils.ts, v4.0.12) under
// node: JSON.parse, every code cell's outputs set to [], other cells'
// left as they were, JSON.stringify with an indent of 1; text that does
// not parse, has no cells list or a cell that cannot be read comes back
// unchanged.
func clineNotebookOracle(t *testing.T, notebook string) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is needed as the oracle for Cline's notebook text (test.sh installs nodejs)")
	}
	const js = `let s = ""; process.stdin.on("data", d => s += d).on("end", () => {
		let out = s;
		try {
			const nb = JSON.parse(s);
			if (nb.cells && Array.isArray(nb.cells)) {
				nb.cells = nb.cells.map(c => ({...c, outputs: c.cell_type === "code" ? [] : c.outputs}));
				out = JSON.stringify(nb, null, 1);
			}
		} catch {}
		process.stdout.write(out);
	})`
	cmd := exec.CommandContext(t.Context(), node, "-e", js)
	cmd.Stdin = strings.NewReader(notebook)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	return string(out)
}

// TestNotebookTextMatchesJSONStringify checks the printing against node on
// what JSON.stringify is particular about: key order (a key set twice stays
// where it first stood), numbers, escapes, empty containers, cells that
// are not objects.
func TestNotebookTextMatchesJSONStringify(t *testing.T) {
	for _, nb := range []string{
		`{"nbformat":4,"cells":[{"cell_type":"code","source":"x = 1","outputs":[{"data":{"image/png":"AAAA"}}],"id":"a"},{"cell_type":"code","source":[]}],"metadata":{}}`,
		`{"cells":[{"cell_type":"raw","outputs":[1,2],"z":1,"a":2,"z":3}],"n":[1.0,1e21,1.5e-7,-0,0.000001,123456789012345678901234,3.14,-2],"s":"q\"b\\s/\u0001\u007f<>&\u2028 é\t\n"}`,
		`{"cells":["ab",7,{}],"metadata":{"kernel":{"name":"python3"}}}`,
		`{"cells":[{"cell_type":"code"},null]}`,
		`{"cells":{"0":1}}`,
		`null`,
		`[1,2]`,
		`{"cells":[] } trailing`,
	} {
		got := cline.Texts{}.Notebook([]byte(nb))
		if want := clineNotebookOracle(t, nb); got != want {
			t.Errorf("for %s:\n got %q\nwant %q", nb, got, want)
		}
	}
}

// TestEditedNotebookContentHasNoOutputs follows Cline's
// DiffViewProvider.saveChanges (v4.0.12): the final_file_content of a
// notebook it wrote is sanitizeNotebookForLLM(content, true), while the
// file keeps its outputs.
func TestEditedNotebookContentHasNoOutputs(t *testing.T) {
	f := newFixture(t)
	nb := `{"cells":[{"cell_type":"code","outputs":[{"output_type":"stream","text":"big output"}],"source":"print(1)"}],"nbformat":4}`
	res, _ := f.call(t, "write_to_file", map[string]any{"path": "n.ipynb", "content": nb})
	if res.IsError {
		t.Fatalf("write failed: %q", text(res))
	}
	want := "<final_file_content path=\"n.ipynb\">\n" + clineNotebookOracle(t, nb) + "\n</final_file_content>"
	if got := res.Content[0].Text; !strings.Contains(got, want) {
		t.Errorf("saved text = %q, want it to hold %q", got, want)
	}
	if on, err := os.ReadFile(filepath.Join(f.dir, "n.ipynb")); err != nil || string(on) != nb {
		t.Errorf("file = %q, want what was written", on)
	}
}

// TestDocumentTextMatchesClineLibraries runs the libraries Cline v4.0.12
// uses (extract-text.ts: pdf-parse 1.1.1 through pdf-parse/lib/pdf-parse,
// mammoth 1.11 extractRawText) under node on generated files and compares
// their text with toolgate's. test.sh installs them and names their
// node_modules in TOOLGATE_JS_ORACLES.
func TestDocumentTextMatchesClineLibraries(t *testing.T) {
	modules := os.Getenv("TOOLGATE_JS_ORACLES")
	if modules == "" {
		t.Skip("TOOLGATE_JS_ORACLES is not set: test.sh installs pdf-parse and mammoth and sets it")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is needed (test.sh installs nodejs)")
	}
	dir := t.TempDir()
	pdfFile := filepath.Join(dir, "sample.pdf")
	docxFile := filepath.Join(dir, "sample.docx")
	write := func(p string, data []byte) {
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(pdfFile, pdfWithPages([]string{
		"BT /F1 12 Tf 14 TL 72 720 Td (Title line) Tj T* (Second) Tj ( and more on it) Tj ET",
		"BT /F1 10 Tf 72 700 Td [(Kerned) -250 (words)] TJ 0 -30 Td (Lower) Tj ET BT /F1 10 Tf 300 700 Td (Same height) Tj ET",
		"",
		"q 1 0 0 1 0 -50 cm BT /F1 12 Tf 72 720 Td (Shifted) Tj ET Q BT /F1 12 Tf 72 670 Td (Same height as shifted) Tj ET",
		"BT /F1 12 Tf 5 Tw 14 TL 72 600 Td (a b) Tj T* (next) ' 1 2 (quoted) \" [(far) -2000 (gap) -600 (two)] TJ 3 Ts (risen) Tj 0 Ts " +
			"1 0 0 1 72 500 Tm (matrix) Tj ET",
		"BT /F1 12 Tf 72 720 Td (Last page) Tj ET",
	}))
	write(docxFile, sampleDocx(t,
		`<w:p><w:pPr><w:tabs><w:tab w:val="left" w:pos="720"/></w:tabs></w:pPr><w:r><w:rPr><w:b/></w:rPr><w:t>Dear</w:t></w:r><w:r><w:t xml:space="preserve"> reader,</w:t></w:r></w:p>`+
			`<w:p><w:r><w:t>Name</w:t><w:tab/><w:t>Value</w:t></w:r></w:p>`+
			`<w:p/>`+
			`<w:p><w:hyperlink><w:r><w:t>link text</w:t></w:r></w:hyperlink><w:r><w:delText>deleted</w:delText></w:r><w:r><w:instrText>PAGE</w:instrText></w:r></w:p>`+
			`<w:tbl><w:tr><w:tc><w:p><w:r><w:t>cell 1</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>cell 2</w:t></w:r></w:p></w:tc></w:tr></w:tbl>`+
			`<w:p><mc:AlternateContent><mc:Choice Requires="wps"><w:r><w:t>choice</w:t></w:r></mc:Choice><mc:Fallback><w:r><w:t>fallback</w:t></w:r></mc:Fallback></mc:AlternateContent></w:p>`+
			`<w:sectPr><w:pgSz w:w="12240"/></w:sectPr>`))

	// pdf-parse is given a fresh Uint8Array: pdf.js 1.10 reads a pooled
	// Node Buffer's whole ArrayBuffer, which breaks on files this small.
	const js = `const fs = require("fs");
		const pdf = require("pdf-parse/lib/pdf-parse");
		const mammoth = require("mammoth");
		(async () => {
			const p = await pdf(new Uint8Array(fs.readFileSync(process.argv[1])));
			const d = await mammoth.extractRawText({path: process.argv[2]});
			process.stdout.write(JSON.stringify({pdf: p.text, docx: d.value}));
		})().catch(e => { console.error(e); process.exit(1); });`
	cmd := exec.CommandContext(t.Context(), node, "-e", js, pdfFile, docxFile)
	cmd.Env = append(os.Environ(), "NODE_PATH="+modules)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var want struct{ PDF, Docx string }
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, path, want string
		extract          func(*os.File, int64) (string, error)
	}{{"pdf", pdfFile, want.PDF, pdfText}, {"docx", docxFile, want.Docx, docxText}} {
		f, err := os.Open(c.path)
		if err != nil {
			t.Fatal(err)
		}
		st, _ := f.Stat()
		got, err := c.extract(f, st.Size())
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got != c.want {
			t.Errorf("%s text = %q\nCline's library gives %q", c.name, got, c.want)
		}
	}
}
