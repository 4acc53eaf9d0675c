package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"reflect"
	"strings"

	fastjson "github.com/segmentio/encoding/json"
	"github.com/toolgate/toolgate/api"
)

// decode reads one JSON value from the body into v: capped in size, unknown
// fields refused, nothing after the value.
func (s *Server) decode(w http.ResponseWriter, r *http.Request, v any) error {
	buf := s.bodyBuffer()
	defer s.putBodyBuffer(buf)
	if err := s.readBody(w, r, buf); err != nil {
		return decodeError(err)
	}
	if decodeFast(buf.Bytes(), v) {
		return nil
	}
	dec := slowDecoder(buf.Bytes(), v)
	if err := dec.Decode(v); err != nil {
		return decodeError(err)
	}
	return endOfBody(dec)
}

// readBody reads r's body into buf, capped at max_body_bytes.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request, buf *bytes.Buffer) error {
	if n := r.ContentLength; n > 0 && n <= s.cfg.MaxBodyBytes {
		buf.Grow(int(n) + bytes.MinRead) // ReadFrom wants MinRead free before it sees the end
	}
	if _, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes)); err != nil {
		return err
	}
	// Read to its end: closed now, net/http knows it was, and does not
	// try to read what is left of it before it writes the answer's
	// header (BenchmarkAnswerHeaders, ./server/, docs/benchmarks.md).
	_ = r.Body.Close() // a body read to its end closes without error
	return nil
}

// decodeFast decodes body into v with segmentio's decoder, several times
// faster than encoding/json's on a request body, and reports whether body
// is one JSON value that fits v with no unknown field. Whatever it refuses
// goes to slowDecoder, which decides with encoding/json and words the
// error as it always has. Speed only: BenchmarkDecodeBody (./server/,
// docs/benchmarks.md); TestDecodeFastAgrees holds the two decoders to one
// result.
func decodeFast(body []byte, v any) bool {
	rest, err := fastjson.Parse(body, v, fastjson.DisallowUnknownFields)
	return err == nil && len(bytes.TrimLeft(rest, " \t\r\n")) == 0
}

// unmarshalFast is decodeFast with unknown fields passed over, as
// json.Unmarshal does: a message's content blocks are decoded so. What it
// refuses goes to encoding/json, v cleared first (clearValue). Speed
// only: BenchmarkToolUseVsBare/route=messages (./cmd/toolgate/,
// docs/benchmarks.md); TestDecodeFastAgrees holds it to json.Unmarshal.
func unmarshalFast(raw []byte, v any) bool {
	rest, err := fastjson.Parse(raw, v, 0)
	return err == nil && len(bytes.TrimLeft(rest, " \t\r\n")) == 0
}

// slowDecoder is encoding/json's decoder over body, unknown fields
// refused, with v cleared of what decodeFast may have left in it.
func slowDecoder(body []byte, v any) *json.Decoder {
	clearValue(v)
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	return dec
}

// clearValue sets what the pointer v points to to its zero value.
func clearValue(v any) {
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && !rv.IsNil() {
		rv.Elem().SetZero()
	}
}

// endOfBody refuses anything after the value dec decoded.
func endOfBody(dec *json.Decoder) error {
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errorf(api.CodeInvalidJSON, "request body must hold one JSON value")
	}
	return nil
}

// decodeKeeping is decode that also returns the body it read, for a
// second look when v is not what the body holds: a body that is one JSON
// value comes back with the error of decoding it into v (nil when it
// fits); any other gets no body and decode's error. Reading the body once
// spares the usual body a second decoding.
func (s *Server) decodeKeeping(w http.ResponseWriter, r *http.Request, v any) ([]byte, error) {
	var buf bytes.Buffer // kept by the caller: not from the pool
	if err := s.readBody(w, r, &buf); err != nil {
		return nil, decodeError(err)
	}
	body := buf.Bytes()
	if decodeFast(body, v) {
		return body, nil
	}
	dec := slowDecoder(body, v)
	err := dec.Decode(v)
	if dec.InputOffset() == 0 { // the body holds no JSON value: nothing was decoded
		return nil, decodeError(err)
	}
	if eerr := endOfBody(dec); eerr != nil {
		return nil, eerr
	}
	return body, err
}

func decodeError(err error) error {
	var tooLarge *http.MaxBytesError
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &tooLarge):
		return errorf(api.CodeBodyTooLarge, fmt.Sprintf("request body is larger than %d bytes", tooLarge.Limit))
	case errors.Is(err, os.ErrDeadlineExceeded):
		return errorf(api.CodeRequestTimeout, "the request body did not arrive within read_timeout")
	case errors.Is(err, io.EOF):
		return errorf(api.CodeInvalidJSON, "request body is empty; a JSON object is required")
	case errors.As(err, &syntax):
		return errorf(api.CodeInvalidJSON, fmt.Sprintf("malformed JSON at byte %d: %v", syntax.Offset, err))
	case errors.As(err, &typ):
		return &api.Error{Code: api.CodeValidation, Message: "a field has the wrong type",
			Fields: map[string]string{typ.Field: "must be " + typ.Type.String()}}
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return &api.Error{Code: api.CodeValidation, Message: "unknown field " + name, Fields: map[string]string{name: "unknown field"}}
	}
	return errorf(api.CodeInvalidJSON, "malformed JSON: "+err.Error())
}

// encode marshals v before writing anything, so a marshalling failure
// becomes a clean 500 rather than half a 200.
func (s *Server) encode(w http.ResponseWriter, r *http.Request, status int, v any) {
	eb, _ := s.encodeBufs.Get().(*encodeBuffer)
	if eb == nil {
		eb = newEncodeBuffer()
	}
	defer s.putEncodeBuffer(eb)
	if err := eb.encode(v); err != nil {
		logFrom(r, s.logger).Error("encode response", "err", err)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = io.WriteString(w, `{"error":{"code":"internal","message":"internal error"}}`+"\n")
		return
	}
	// The length is known: an answer over net/http's 2 KB buffer would
	// otherwise go out chunked, which costs both ends more to frame.
	setJSONHeaders(w.Header(), eb.buf.Len())
	w.WriteHeader(status)
	_, _ = w.Write(eb.buf.Bytes())
}

// bodyBuffer is a request body buffer from the server's pool: every
// decoded body needs one (BenchmarkDecodeBody, ./server/,
// docs/benchmarks.md).
func (s *Server) bodyBuffer() *bytes.Buffer {
	if b, _ := s.bodyBufs.Get().(*bytes.Buffer); b != nil {
		return b
	}
	return new(bytes.Buffer)
}

// putBodyBuffer returns a body buffer to the pool; decode copies every
// string and raw value out of it, so nothing refers to it after.
func (s *Server) putBodyBuffer(b *bytes.Buffer) {
	if b.Cap() > maxPooledBuffer {
		return
	}
	b.Reset()
	s.bodyBufs.Put(b)
}

// encodeBuffer is a response buffer with its encoder, recycled together.
type encodeBuffer struct {
	buf bytes.Buffer
	enc *json.Encoder
}

// newEncodeBuffer is an empty response buffer with its encoder.
func newEncodeBuffer() *encodeBuffer {
	eb := new(encodeBuffer)
	eb.enc = json.NewEncoder(&eb.buf)
	return eb
}

// encode writes v and a newline to the buffer. The answers of calls, the
// most frequent and mostly a tool's text, are appended by appendAnswer
// (encode_answer.go) in the bytes encoding/json writes; every other
// answer, and one appendAnswer leaves, goes through encoding/json's
// encoder.
func (eb *encodeBuffer) encode(v any) error {
	switch v.(type) {
	case api.ToolUseResponse, api.MessageResponse:
		if b, ok := appendAnswer(eb.buf.AvailableBuffer(), v); ok {
			_, _ = eb.buf.Write(b) // in place when it fitted the buffer
			return nil
		}
	}
	return eb.enc.Encode(v)
}

// maxPooledBuffer keeps a rare huge response (a large file read) from
// pinning its buffer in the pool.
const maxPooledBuffer = 64 << 10

// putEncodeBuffer returns a response buffer to the server's pool: every
// JSON answer needs one, and growing a fresh one each time is most of
// encode's garbage (BenchmarkEncodeBuffers, ./server/, docs/benchmarks.md).
func (s *Server) putEncodeBuffer(eb *encodeBuffer) {
	if eb.buf.Cap() > maxPooledBuffer {
		return
	}
	eb.buf.Reset()
	s.encodeBufs.Put(eb)
}
