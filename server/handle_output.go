package server

import (
	"io"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"
	"github.com/toolgate/toolgate/api"
)

// handleCallOutput serves a finished call's full output (execute_command
// keeps it, capped) as plain text.
func (s *Server) handleCallOutput(w http.ResponseWriter, r *http.Request) {
	sess, ok := s.session(w, r)
	if !ok {
		return
	}
	out, state, found := sess.Output(chi.URLParam(r, "tool_use_id"))
	switch {
	case !found:
		s.writeError(w, r, errorf(api.CodeNotFound, "no such call in this session"))
		return
	case state != api.StateDone:
		s.writeError(w, r, errorf(api.CodeConflict, "the call has not finished; its output streams as tool.output events"))
		return
	case out == nil:
		s.writeError(w, r, errorf(api.CodeNotFound, "this call kept no output"))
		return
	}
	rc, err := out.Open()
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	defer rc.Close()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Content-Length", strconv.FormatInt(out.Size(), 10))
	w.WriteHeader(http.StatusOK)
	_, _ = io.Copy(w, rc)
}
