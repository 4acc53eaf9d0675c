package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"

	"github.com/toolgate/toolgate/api"
)

// decode reads one JSON value from the body into v: capped in size, unknown
// fields refused, nothing after the value.
func (s *Server) decode(w http.ResponseWriter, r *http.Request, v any) error {
	dec := s.bodyDecoder(w, r, r.Body)
	if err := dec.Decode(v); err != nil {
		return decodeError(err)
	}
	return endOfBody(dec)
}

// bodyDecoder decodes from body, r's body or a reader over it, capped in
// size and refusing unknown fields.
func (s *Server) bodyDecoder(w http.ResponseWriter, r *http.Request, body io.Reader) *json.Decoder {
	dec := json.NewDecoder(http.MaxBytesReader(w, io.NopCloser(body), s.cfg.MaxBodyBytes))
	dec.DisallowUnknownFields()
	return dec
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
	var body bytes.Buffer
	dec := s.bodyDecoder(w, r, io.TeeReader(r.Body, &body))
	err := dec.Decode(v)
	if dec.InputOffset() == 0 { // the body holds no JSON value: nothing was decoded
		return nil, decodeError(err)
	}
	if eerr := endOfBody(dec); eerr != nil {
		return nil, eerr
	}
	return body.Bytes(), err
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
		eb = new(encodeBuffer)
		eb.enc = json.NewEncoder(&eb.buf)
	}
	defer s.putEncodeBuffer(eb)
	if err := eb.enc.Encode(v); err != nil {
		logFrom(r, s.logger).Error("encode response", "err", err)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = io.WriteString(w, `{"error":{"code":"internal","message":"internal error"}}`+"\n")
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	// The length is known: an answer over net/http's 2 KB buffer would
	// otherwise go out chunked, which costs both ends more to frame.
	h.Set("Content-Length", strconv.Itoa(eb.buf.Len()))
	w.WriteHeader(status)
	_, _ = w.Write(eb.buf.Bytes())
}

// encodeBuffer is a response buffer with its encoder, recycled together.
type encodeBuffer struct {
	buf bytes.Buffer
	enc *json.Encoder
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
