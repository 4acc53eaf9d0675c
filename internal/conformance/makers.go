package conformance

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"strings"
)

// PNG is a w by h gradient image, the same bytes each time.
func PNG(w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{R: uint8(x * 255 / max(1, w-1)), G: uint8(y * 255 / max(1, h-1)), B: 128, A: 255})
		}
	}
	var b bytes.Buffer
	_ = png.Encode(&b, img)
	return b.Bytes()
}

// PDF is a PDF of one page per element of pages, each page's lines in
// 12-point Helvetica 16 points apart, its cross reference table computed
// from the objects it writes. pad bytes of comment follow each page's
// text: pdf-parse, Cline's PDF library, fails on PDFs under about 4 KB.
func PDF(pad int, pages ...[]string) []byte {
	n := len(pages)
	objs := []string{"<< /Type /Catalog /Pages 2 0 R >>", ""}
	var kids []string
	for i, lines := range pages {
		page, content := 3+2*i, 4+2*i
		kids = append(kids, fmt.Sprintf("%d 0 R", page))
		var text strings.Builder
		text.WriteString("BT /F1 12 Tf 72 720 Td")
		for j, l := range lines {
			if j > 0 {
				text.WriteString(" 0 -16 Td")
			}
			fmt.Fprintf(&text, " (%s) Tj", l)
		}
		text.WriteString(" ET\n")
		if pad > 0 {
			text.WriteString("% " + strings.Repeat("p", pad) + "\n")
		}
		objs = append(objs,
			fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R /Resources << /Font << /F1 %d 0 R >> >> >>", content, 3+2*n),
			fmt.Sprintf("<< /Length %d >>\nstream\n%sendstream", text.Len(), text.String()))
	}
	objs[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), n)
	objs = append(objs, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	return pdfFile(objs)
}

// pdfFile lays objs out as a PDF file: numbered objects from 1 (the
// first is the catalog), the cross-reference table and the trailer.
func pdfFile(objs []string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}
