package handlers

import (
	"strings"

	"github.com/ledongthuc/pdf"
)

// pdfPageText is one page's text as pdf-parse 1.1.1 renders it (its
// render_page over pdf.js 1.10's getTextContent): the text pieces in
// drawing order, joined as they are while they sit at one height, with a
// line break where the height changes. Like pdf.js, a gap in a TJ array
// wider than 0.3 of the font's space becomes a space (several for gaps of
// 1.5 spaces and more, none past 4, where pdf.js starts a new piece), and
// so does positive word spacing on a space. Heights follow the text and
// graphics matrices (Tm, Td, TD, T*, ', ", Ts, cm, q, Q). What pdf.js works
// out from glyph widths (spaces between pieces placed side by side by Td or
// Tm) and text inside form XObjects are not reproduced.
func pdfPageText(p pdf.Page) string {
	strm := p.V.Key("Contents")
	if p.V.IsNull() || strm.Kind() == pdf.Null {
		return ""
	}
	var (
		b                     strings.Builder
		lastY                 float64
		ctm                   = identityMatrix
		ctmStack              []pdfMatrix
		tm, tlm               = identityMatrix, identityMatrix
		leading, rise, wordSp float64
		fontSize              = 1.0
		spaceWidth            float64 // of the current font at its size
		enc                   pdf.TextEncoding
		isMono                bool
	)
	// piece starts a text piece at the current position: pdf-parse breaks
	// the line when its height differs from the previous piece's.
	piece := func() {
		y := ctm[1]*(tm[2]*rise+tm[4]) + ctm[3]*(tm[3]*rise+tm[5]) + ctm[5]
		if lastY != 0 && y != lastY {
			b.WriteByte('\n')
		}
		lastY = y
	}
	show := func(raw string) {
		if enc == nil {
			b.WriteString(raw)
			return
		}
		for _, r := range enc.Decode(raw) {
			// pdf.js puts word spacing's fake spaces before the space.
			if r == ' ' && wordSp > 0 && spaceWidth > 0 {
				fakeSpaces(&b, wordSp, spaceWidth)
			}
			b.WriteRune(r)
		}
	}
	nextLine := func(tx, ty float64) {
		tlm = pdfMatrix{1, 0, 0, 1, tx, ty}.times(tlm)
		tm = tlm
	}
	pdf.Interpret(strm, func(stk *pdf.Stack, op string) {
		args := make([]pdf.Value, stk.Len())
		for i := len(args) - 1; i >= 0; i-- {
			args[i] = stk.Pop()
		}
		num := func(i int) float64 {
			if i < len(args) {
				return args[i].Float64()
			}
			return 0
		}
		switch op {
		case "q":
			ctmStack = append(ctmStack, ctm)
		case "Q":
			if n := len(ctmStack); n > 0 {
				ctm, ctmStack = ctmStack[n-1], ctmStack[:n-1]
			}
		case "cm":
			ctm = pdfMatrix{num(0), num(1), num(2), num(3), num(4), num(5)}.times(ctm)
		case "BT":
			tm, tlm = identityMatrix, identityMatrix
		case "Tf":
			if len(args) == 2 {
				fontSize = args[1].Float64()
				f := p.Font(args[0].Name())
				enc = f.Encoder()
				spaceWidth, isMono = pdfSpaceWidth(f)
				spaceWidth *= fontSize / 1000
			}
		case "TL":
			leading = num(0)
		case "Ts":
			rise = num(0)
		case "Tw":
			wordSp = num(0)
		case "Td":
			nextLine(num(0), num(1))
		case "TD":
			leading = -num(1)
			nextLine(num(0), num(1))
		case "T*":
			nextLine(0, -leading)
		case "Tm":
			tlm = pdfMatrix{num(0), num(1), num(2), num(3), num(4), num(5)}
			tm = tlm
		case "Tj":
			if len(args) == 1 {
				piece()
				show(args[0].RawString())
			}
		case "'", "\"":
			if len(args) == 0 {
				return
			}
			if op == "\"" && len(args) == 3 {
				wordSp = num(0)
			}
			nextLine(0, -leading)
			piece()
			show(args[len(args)-1].RawString())
		case "TJ":
			if len(args) != 1 {
				return
			}
			piece()
			arr := args[0]
			for i := 0; i < arr.Len(); i++ {
				v := arr.Index(i)
				if v.Kind() == pdf.String {
					show(v.RawString())
					continue
				}
				advance := -v.Float64() * fontSize / 1000
				if spaceWidth > 0 && !isMono && advance > spaceWidth*4 {
					piece() // pdf.js ends the piece; the same height joins it on
					continue
				}
				if advance > 0 && spaceWidth > 0 {
					fakeSpaces(&b, advance, spaceWidth)
				}
			}
		}
	})
	return b.String()
}

// fakeSpaces is pdf.js's addFakeSpaces: a gap under 0.3 of a space is
// nothing, under 1.5 one space, else as many spaces as fit.
func fakeSpaces(b *strings.Builder, gap, space float64) {
	switch {
	case gap < space*0.3:
	case gap < space*1.5:
		b.WriteByte(' ')
	default:
		for n := int(gap/space + 0.5); n > 0; n-- {
			b.WriteByte(' ')
		}
	}
}

// pdfSpaceWidth is the width of a font's space in thousandths of its size
// (from its Widths, else the metrics of the standard fonts pdf.js carries)
// and whether it is a monospaced font.
func pdfSpaceWidth(f pdf.Font) (float64, bool) {
	base := f.BaseFont()
	mono := strings.HasPrefix(base, "Courier")
	if w := f.Width(' '); w > 0 {
		return w, mono
	}
	switch {
	case mono:
		return 600, true
	case strings.HasPrefix(base, "Helvetica"), strings.HasPrefix(base, "Arial"), base == "ZapfDingbats":
		return 278, false
	case strings.HasPrefix(base, "Times"), base == "Symbol":
		return 250, false
	}
	return 0, false
}

// pdfMatrix is a PDF transformation matrix [a b c d e f].
type pdfMatrix [6]float64

var identityMatrix = pdfMatrix{1, 0, 0, 1, 0, 0}

// times is m × n in PDF's row-vector convention (m applied first).
func (m pdfMatrix) times(n pdfMatrix) pdfMatrix {
	return pdfMatrix{
		m[0]*n[0] + m[1]*n[2], m[0]*n[1] + m[1]*n[3],
		m[2]*n[0] + m[3]*n[2], m[2]*n[1] + m[3]*n[3],
		m[4]*n[0] + m[5]*n[2] + n[4], m[4]*n[1] + m[5]*n[3] + n[5],
	}
}
