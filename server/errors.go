package server

import (
	"errors"
	"net/http"

	"github.com/toolgate/toolgate/api"
)

// statusOf maps each request-level error code to its one HTTP status.
var statusOf = map[string]int{
	api.CodeBadRequest:       http.StatusBadRequest,
	api.CodeInvalidJSON:      http.StatusBadRequest,
	api.CodeValidation:       http.StatusBadRequest,
	api.CodeUnsupportedMedia: http.StatusUnsupportedMediaType,
	api.CodeBodyTooLarge:     http.StatusRequestEntityTooLarge,
	api.CodeUnauthorized:     http.StatusUnauthorized,
	api.CodeForbiddenHost:    http.StatusForbidden,
	api.CodeForbiddenOrigin:  http.StatusForbidden,
	api.CodeForbiddenScope:   http.StatusForbidden,
	api.CodeNotFound:         http.StatusNotFound,
	api.CodeMethodNotAllowed: http.StatusMethodNotAllowed,
	api.CodeConflict:         http.StatusConflict,
	api.CodeTooManySessions:  http.StatusTooManyRequests,
	api.CodeTooManyMessages:  http.StatusTooManyRequests,
	api.CodeNotAcceptable:    http.StatusNotAcceptable,
	api.CodeInternal:         http.StatusInternalServerError,
	api.CodeUnavailable:      http.StatusServiceUnavailable,
	api.CodeFileChanged:      http.StatusConflict,
	api.CodeRequestTimeout:   http.StatusRequestTimeout,
}

// handlerFunc is the shape of every route handler: it writes its own
// success answer and returns an error for anything else. An *api.Error is
// answered with its code's status; any other error is a 500 whose detail
// only the log sees.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// handle adapts a handlerFunc to net/http: the one place a handler's error
// becomes the problem response, so no handler writes errors itself.
func (s *Server) handle(h handlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			s.writeError(w, r, err)
		}
	}
}

// writeError answers with the error shape. An error that is not an
// *api.Error is internal: the client learns only that, the log gets it all.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var ae *api.Error
	if !errors.As(err, &ae) {
		logFrom(r, s.logger).Error("internal error", "err", err)
		ae = &api.Error{Code: api.CodeInternal, Message: "internal error"}
	}
	status, ok := statusOf[ae.Code]
	if !ok {
		status = http.StatusInternalServerError
	}
	s.encode(w, r, status, api.ErrorResponse{Error: ae})
}

func errorf(code, msg string) *api.Error { return &api.Error{Code: code, Message: msg} }
