package cline

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"
)

// notebookText is a Jupyter notebook as Cline's read_file shows it
// (apps/vscode/src/integrations/misc/notebook-utils.ts,
// sanitizeNotebookForLLM(data, true), v4.0.12): every code cell's outputs
// emptied, everything else kept in its order, printed as JavaScript's
// JSON.stringify(notebook, null, 1) prints it. Text that is not a notebook
// (no JSON, or no cells list) comes back unchanged, as in Cline.
func notebookText(data []byte) string {
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	nb, err := parseOrderedJSON(data)
	if err != nil || nb.kind != jsObject {
		return string(data)
	}
	cells := nb.get("cells")
	if cells == nil || cells.kind != jsArray {
		return string(data)
	}
	for i, c := range cells.items {
		if c.kind == jsNull {
			// Cline reads null.cell_type, which throws: the text comes
			// back as it was.
			return string(data)
		}
		cells.items[i] = stripCellOutputs(c)
	}
	var b strings.Builder
	nb.stringify(&b, "")
	return b.String()
}

// stripCellOutputs is Cline's ({...cell, outputs: cell.cell_type ===
// "code" ? [] : cell.outputs}): a code cell's outputs become [] (added at
// the end when it had none), other cells keep theirs. Spreading a value
// that is not an object gives its string's characters, or nothing.
func stripCellOutputs(cell *jsValue) *jsValue {
	out := &jsValue{kind: jsObject}
	switch cell.kind {
	case jsObject:
		out.keys = append(out.keys, cell.keys...)
		out.items = append(out.items, cell.items...)
	case jsString:
		i := 0
		for _, r := range cell.str {
			out.set(strconv.Itoa(i), &jsValue{kind: jsString, str: string(r)})
			i++
		}
	}
	if t := out.get("cell_type"); t != nil && t.kind == jsString && t.str == "code" {
		out.set("outputs", &jsValue{kind: jsArray})
	}
	return out
}

// jsValue is a JSON value that keeps its object keys in the order a
// JavaScript object would, so that it prints back as JSON.stringify does.
type jsValue struct {
	kind  jsKind
	str   string  // a string's text
	num   float64 // a number
	bool  bool
	keys  []string   // an object's keys, in order
	items []*jsValue // an object's values (with keys) or an array's items
}

type jsKind uint8

const (
	jsNull jsKind = iota
	jsBool
	jsNumber
	jsString
	jsArray
	jsObject
)

func (v *jsValue) get(key string) *jsValue {
	for i, k := range v.keys {
		if k == key {
			return v.items[i]
		}
	}
	return nil
}

// set replaces a key's value where it stands, or adds the key at the end:
// JavaScript keeps a key where it was first defined. (Keys that are array
// indices, which JavaScript lists first, are left in their order.)
func (v *jsValue) set(key string, val *jsValue) {
	for i, k := range v.keys {
		if k == key {
			v.items[i] = val
			return
		}
	}
	v.keys = append(v.keys, key)
	v.items = append(v.items, val)
}

// parseOrderedJSON parses one JSON text whole.
func parseOrderedJSON(data []byte) (*jsValue, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeJSValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("text after the JSON value")
	}
	return v, nil
}

func decodeJSValue(dec *json.Decoder) (*jsValue, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			obj := &jsValue{kind: jsObject}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, _ := kt.(string)
				val, err := decodeJSValue(dec)
				if err != nil {
					return nil, err
				}
				obj.set(key, val)
			}
			_, err := dec.Token()
			return obj, err
		case '[':
			arr := &jsValue{kind: jsArray}
			for dec.More() {
				val, err := decodeJSValue(dec)
				if err != nil {
					return nil, err
				}
				arr.items = append(arr.items, val)
			}
			_, err := dec.Token()
			return arr, err
		}
		return nil, errors.New("unexpected delimiter")
	case string:
		return &jsValue{kind: jsString, str: t}, nil
	case json.Number:
		f, err := strconv.ParseFloat(string(t), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return nil, err
		}
		return &jsValue{kind: jsNumber, num: f}, nil
	case bool:
		return &jsValue{kind: jsBool, bool: t}, nil
	default:
		return &jsValue{kind: jsNull}, nil
	}
}

// stringify writes v as JSON.stringify(v, null, 1) does: one space of
// indent a level, "key": value, empty containers as {} and [].
func (v *jsValue) stringify(b *strings.Builder, indent string) {
	switch v.kind {
	case jsNull:
		b.WriteString("null")
	case jsBool:
		b.WriteString(strconv.FormatBool(v.bool))
	case jsNumber:
		b.WriteString(jsNumberText(v.num))
	case jsString:
		writeJSString(b, v.str)
	case jsArray, jsObject:
		open, end := "[", "]"
		if v.kind == jsObject {
			open, end = "{", "}"
		}
		if len(v.items) == 0 {
			b.WriteString(open + end)
			return
		}
		inner := indent + " "
		b.WriteString(open)
		for i, item := range v.items {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString("\n" + inner)
			if v.kind == jsObject {
				writeJSString(b, v.keys[i])
				b.WriteString(": ")
			}
			item.stringify(b, inner)
		}
		b.WriteString("\n" + indent + end)
	}
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
