package server

import (
	"bytes"
	"encoding/json"
	"errors"
)

// A JSON value read with its objects' key order kept, for rewriting tool
// schemas: a model reads a tool's parameters in the order they are
// declared, so a rewritten schema must keep it (a Go map would sort them).
// Values are jsonObject, []any, or json.RawMessage for a scalar.
type jsonObject []jsonMember

// jsonMember is one key of a jsonObject.
type jsonMember struct {
	Key   string
	Value any
}

// get returns the value of key, if the object has it.
func (o jsonObject) get(key string) (any, bool) {
	for _, m := range o {
		if m.Key == key {
			return m.Value, true
		}
	}
	return nil, false
}

// set replaces key's value, or adds the key at the end.
func (o jsonObject) set(key string, v any) jsonObject {
	for i, m := range o {
		if m.Key == key {
			o[i].Value = v
			return o
		}
	}
	return append(o, jsonMember{key, v})
}

// MarshalJSON writes the members in their order.
func (o jsonObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.Key)
		b.Write(k)
		b.WriteByte(':')
		v, err := json.Marshal(m.Value)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// readOrdered reads one JSON value, keeping the order of object keys.
func readOrdered(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := readValue(dec)
	if err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("more than one JSON value")
	}
	return v, nil
}

func readValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		obj := jsonObject{}
		for dec.More() {
			key, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := readValue(dec)
			if err != nil {
				return nil, err
			}
			obj = append(obj, jsonMember{key.(string), v})
		}
		_, err := dec.Token()
		return obj, err
	case json.Delim('['):
		arr := []any{}
		for dec.More() {
			v, err := readValue(dec)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
		_, err := dec.Token()
		return arr, err
	}
	raw, err := json.Marshal(tok)
	return json.RawMessage(raw), err
}
