package server

import (
	"io"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"
	"github.com/toolgate/toolgate/api"
)

// handleCallOutput serves a call's full output (execute_command keeps it,
// capped) as plain text: all of it once the call has finished, what it
// has printed so far while it runs.
func (s *Server) handleCallOutput(w http.ResponseWriter, r *http.Request) error {
	sess, err := s.session(r)
	if err != nil {
		return err
	}
	out, state, found := sess.Output(chi.URLParam(r, "tool_use_id"))
	switch {
	case !found:
		return errorf(api.CodeNotFound, "no such call in this session")
	case out == nil && state != api.StateDone:
		return errorf(api.CodeConflict, "the call is "+string(state)+": it has no output yet")
	case out == nil:
		return errorf(api.CodeNotFound, "this call kept no output")
	}
	// The size first: a running command's output only grows, so reading
	// that many bytes gives a consistent prefix.
	size := out.Size()
	rc, err := out.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Content-Length", strconv.FormatInt(size, 10))
	w.Header().Set("Toolgate-Call-State", string(state))
	w.WriteHeader(http.StatusOK)
	_, _ = io.CopyN(w, rc, size)
	return nil
}
