package server

import (
	"context"
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

// streamingMessage finds the {sid} session and reads {mid}.
func (s *Server) streamingMessage(r *http.Request) (*coordinator.Session, string, error) {
	sess, err := s.session(r)
	if err != nil {
		return nil, "", err
	}
	mid, err := messageID(r)
	if err != nil {
		return nil, "", err
	}
	return sess, mid, nil
}

// handlePostBlock takes one tool_use block of a message still streaming
// from the model; its call starts as soon as the ordering rules allow.
func (s *Server) handlePostBlock(w http.ResponseWriter, r *http.Request) error {
	sess, mid, err := s.streamingMessage(r)
	if err != nil {
		return err
	}
	var use api.ToolUse
	if err := s.decode(w, r, &use); err != nil {
		return err
	}
	if err := checkToolUse(use, ""); err != nil {
		return err
	}
	if err := s.coord.AddBlock(sess, mid, use); err != nil {
		return err
	}
	s.encode(w, r, http.StatusAccepted, api.BlockAccepted{MessageID: mid, ToolUseID: use.ID, Partial: use.Partial})
	return nil
}

// handleCompleteMessage ends a streaming message's input and answers as
// POST /messages does, as JSON or, with Accept text/event-stream, as the
// message's events from its first one to message.finished.
func (s *Server) handleCompleteMessage(w http.ResponseWriter, r *http.Request) error {
	sess, mid, err := s.streamingMessage(r)
	if err != nil {
		return err
	}
	m, err := s.coord.CompleteMessage(sess, mid)
	if err != nil {
		return err
	}
	if p, ok := preferenceOf(r); ok && !wantsEventStream(r) {
		// The blocks' calls started before this request: a call of the
		// message that already waits counts from the message's start.
		s.answerPreferring(w, r, sess, p, mid, m.EventsAfter(), func(ev api.Event) bool { return ev.MessageID == mid },
			func(ctx context.Context) any { return m.Wait(ctx) })
		return nil
	}
	if !wantsEventStream(r) {
		s.encode(w, r, http.StatusOK, m.Wait(r.Context()))
		return nil
	}
	go m.Wait(sess.Context())
	s.streamMessage(w, r, sess, mid, m.EventsAfter())
	return nil
}

// handleDiscardMessage drops a streaming message: its calls are cancelled
// (block-kind ones finish) and forgotten.
func (s *Server) handleDiscardMessage(w http.ResponseWriter, r *http.Request) error {
	sess, mid, err := s.streamingMessage(r)
	if err != nil {
		return err
	}
	if err := s.coord.DiscardMessage(r.Context(), sess, mid); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
