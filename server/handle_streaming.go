package server

import (
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
)

// messageID reads {mid}, refusing ids no client would send.
func messageID(r *http.Request) (string, error) {
	mid := chi.URLParam(r, "mid")
	if mid == "" || len(mid) > 256 {
		return "", &api.Error{Code: api.CodeValidation, Message: "invalid message id",
			Fields: map[string]string{"mid": "must be 1 to 256 characters"}}
	}
	return mid, nil
}

// streamingMessage finds the {sid} session and reads {mid}, answering the
// error itself when either is wrong.
func (s *Server) streamingMessage(w http.ResponseWriter, r *http.Request) (*coordinator.Session, string, bool) {
	sess, ok := s.session(w, r)
	if !ok {
		return nil, "", false
	}
	mid, err := messageID(r)
	if err != nil {
		s.writeError(w, r, err)
		return nil, "", false
	}
	return sess, mid, true
}

// handlePostBlock takes one tool_use block of a message still streaming
// from the model; its call starts as soon as the ordering rules allow.
func (s *Server) handlePostBlock(w http.ResponseWriter, r *http.Request) {
	sess, mid, ok := s.streamingMessage(w, r)
	if !ok {
		return
	}
	var use api.ToolUse
	if err := s.decode(w, r, &use); err != nil {
		s.writeError(w, r, err)
		return
	}
	if err := checkToolUse(use, ""); err != nil {
		s.writeError(w, r, err)
		return
	}
	if err := s.coord.AddBlock(sess, mid, use); err != nil {
		s.writeError(w, r, err)
		return
	}
	s.encode(w, r, http.StatusAccepted, api.BlockAccepted{MessageID: mid, ToolUseID: use.ID, Partial: use.Partial})
}

// handleCompleteMessage ends a streaming message's input and answers as
// POST /messages does, as JSON or, with Accept text/event-stream, as the
// message's events from its first one to message.finished.
func (s *Server) handleCompleteMessage(w http.ResponseWriter, r *http.Request) {
	sess, mid, ok := s.streamingMessage(w, r)
	if !ok {
		return
	}
	m, err := s.coord.CompleteMessage(sess, mid)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if !wantsEventStream(r) {
		s.encode(w, r, http.StatusOK, m.Wait(r.Context()))
		return
	}
	go m.Wait(sess.Context())
	s.streamMessage(w, r, sess, mid, m.EventsAfter())
}

// handleDiscardMessage drops a streaming message: its calls are cancelled
// (block-kind ones finish) and forgotten.
func (s *Server) handleDiscardMessage(w http.ResponseWriter, r *http.Request) {
	sess, mid, ok := s.streamingMessage(w, r)
	if !ok {
		return
	}
	if err := s.coord.DiscardMessage(r.Context(), sess, mid); err != nil {
		s.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
