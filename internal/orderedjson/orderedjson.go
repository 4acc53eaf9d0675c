// Package orderedjson reads JSON as JavaScript's JSON.parse does, objects
// keeping their keys in the order they were read, so that a document
// written back (JSON.stringify's order) differs from the one read only
// where it was changed. The notebook handlers (which write with
// encoding/json, through Object's MarshalJSON) and Cline's read_file text
// of a notebook (which prints as JSON.stringify) share it. It imports no
// layer.
package orderedjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// Object is a JSON object with its keys in order.
type Object struct {
	keys []string
	vals map[string]any
}

// NewObject is an empty object.
func NewObject() *Object { return &Object{vals: map[string]any{}} }

// Keys are the object's keys, in order; the slice is the object's own.
func (o *Object) Keys() []string { return o.keys }

// Get returns a key's value, nil when it is missing.
func (o *Object) Get(k string) any { return o.vals[k] }

// Set changes a key's value where the key stands, adding it last when it
// is new: a JavaScript object keeps a key where it was first defined.
// (Keys that are array indices, which JavaScript lists first, are left in
// their order.)
func (o *Object) Set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

// MarshalJSON writes the keys in their order, <, > and & as they are (as
// JSON.stringify writes them).
func (o *Object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		key, err := marshalNoEscape(k)
		if err != nil {
			return nil, err
		}
		val, err := marshalNoEscape(o.vals[k])
		if err != nil {
			return nil, err
		}
		b.Write(key)
		b.WriteByte(':')
		b.Write(val)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// marshalNoEscape is json.Marshal without HTML escaping.
func marshalNoEscape(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// Decode reads one JSON text whole, as JSON.parse does: objects as
// *Object, arrays as []any, strings, booleans, null as nil, and numbers
// as float64 (one beyond float64's range as ±Inf, JSON.parse's Infinity).
// Anything after the value is an error.
func Decode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := NewObject()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				o.Set(k, v)
			}
			_, err := dec.Token() // '}'
			return o, err
		case '[':
			list := []any{}
			for dec.More() {
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				list = append(list, v)
			}
			_, err := dec.Token() // ']'
			return list, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	case json.Number:
		f, err := strconv.ParseFloat(string(t), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return nil, err
		}
		return f, nil
	}
	return tok, nil
}
