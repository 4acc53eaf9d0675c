package cline

import (
	"bytes"
	"math"
	"strconv"
	"strings"

	"github.com/toolgate/toolgate/internal/orderedjson"
)

// notebookText is a Jupyter notebook as Cline's read_file shows it
// (apps/vscode/src/integrations/misc/notebook-utils.ts,
// sanitizeNotebookForLLM(data, true), v4.0.12): every code cell's outputs
// emptied, everything else kept in its order, printed as JavaScript's
// JSON.stringify(notebook, null, 1) prints it. Text that is not a notebook
// (no JSON, or no cells list) comes back unchanged, as in Cline.
func notebookText(data []byte) string {
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	doc, err := orderedjson.Decode(data)
	nb, ok := doc.(*orderedjson.Object)
	if err != nil || !ok {
		return string(data)
	}
	cells, ok := nb.Get("cells").([]any)
	if !ok {
		return string(data)
	}
	for i, c := range cells {
		if c == nil {
			// Cline reads null.cell_type, which throws: the text comes
			// back as it was.
			return string(data)
		}
		cells[i] = stripCellOutputs(c)
	}
	var b strings.Builder
	stringify(&b, nb, "")
	return b.String()
}

// stripCellOutputs is Cline's ({...cell, outputs: cell.cell_type ===
// "code" ? [] : cell.outputs}): a code cell's outputs become [] (added at
// the end when it had none), other cells keep theirs. Spreading a value
// that is not an object gives its string's characters, or nothing.
func stripCellOutputs(cell any) *orderedjson.Object {
	out := orderedjson.NewObject()
	switch c := cell.(type) {
	case *orderedjson.Object:
		for _, k := range c.Keys() {
			out.Set(k, c.Get(k))
		}
	case string:
		i := 0
		for _, r := range c {
			out.Set(strconv.Itoa(i), string(r))
			i++
		}
	}
	if out.Get("cell_type") == "code" {
		out.Set("outputs", []any{})
	}
	return out
}

// stringify writes v (as orderedjson.Decode reads it) as
// JSON.stringify(v, null, 1) does: one space of indent a level, "key":
// value, empty containers as {} and [].
func stringify(b *strings.Builder, v any, indent string) {
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case float64:
		b.WriteString(jsNumberText(v))
	case string:
		writeJSString(b, v)
	case []any:
		writeContainer(b, "[", "]", indent, len(v), func(i int) (string, any) { return "", v[i] })
	case *orderedjson.Object:
		keys := v.Keys()
		writeContainer(b, "{", "}", indent, len(keys), func(i int) (string, any) { return keys[i], v.Get(keys[i]) })
	}
}

// writeContainer writes an array's n items or an object's n members
// (item gives each's key, "" in an array, and value).
func writeContainer(b *strings.Builder, open, end, indent string, n int, item func(int) (string, any)) {
	if n == 0 {
		b.WriteString(open + end)
		return
	}
	inner := indent + " "
	b.WriteString(open)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n" + inner)
		key, val := item(i)
		if open == "{" {
			writeJSString(b, key)
			b.WriteString(": ")
		}
		stringify(b, val, inner)
	}
	b.WriteString("\n" + indent + end)
}

// jsNumberText is JavaScript's Number#toString: plain digits from 1e-6 up
// to 1e21, exponent form ("1e-7", "1.5e+21") beyond; infinities (which JSON
// cannot hold) print as null, as JSON.stringify prints them.
func jsNumberText(f float64) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return "null"
	}
	if f == 0 {
		return "0"
	}
	if a := math.Abs(f); a >= 1e-6 && a < 1e21 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	s := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(s, "e")
	sign, digits := exp[:1], strings.TrimLeft(exp[1:], "0")
	return mant + "e" + sign + digits
}

// writeJSString quotes s as JSON.stringify does: only the quote, the
// backslash and control characters are escaped.
func writeJSString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				b.WriteString(`\u00`)
				b.WriteByte("0123456789abcdef"[r>>4])
				b.WriteByte("0123456789abcdef"[r&0xf])
				continue
			}
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}
