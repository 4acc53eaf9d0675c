package server

import (
	"errors"
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/toolgate/toolgate/api"
)

var validStates = map[api.CallState]bool{
	api.StateQueued: true, api.StateRunning: true, api.StateAwaitingApproval: true, api.StateDone: true,
	api.StateAwaitingInput: true,
}

func (s *Server) handleListCalls(w http.ResponseWriter, r *http.Request) {
	sess, ok := s.session(w, r)
	if !ok {
		return
	}
	state := api.CallState(r.URL.Query().Get("state"))
	if state != "" && !validStates[state] {
		s.writeError(w, r, &api.Error{Code: api.CodeValidation, Message: "unknown state",
			Fields: map[string]string{"state": "must be one of queued, running, awaiting_approval, awaiting_input, done"}})
		return
	}
	s.encode(w, r, http.StatusOK, api.CallsResponse{Calls: sess.Calls(state)})
}

func (s *Server) handleGetCall(w http.ResponseWriter, r *http.Request) {
	sess, ok := s.session(w, r)
	if !ok {
		return
	}
	rec, res, found := sess.Call(chi.URLParam(r, "tool_use_id"))
	if !found {
		s.writeError(w, r, errorf(api.CodeNotFound, "no such call in this session"))
		return
	}
	s.encode(w, r, http.StatusOK, api.CallResponse{Call: rec, Result: res})
}

var errCancelledByClient = errors.New("cancelled by the client")

func (s *Server) handleCancelCall(w http.ResponseWriter, r *http.Request) {
	sess, ok := s.session(w, r)
	if !ok {
		return
	}
	id := chi.URLParam(r, "tool_use_id")
	if !sess.HasCall(id) {
		s.writeError(w, r, errorf(api.CodeNotFound, "no such call in this session"))
		return
	}
	if !sess.Cancel(id, errCancelledByClient) {
		s.writeError(w, r, errorf(api.CodeConflict, "the call is not running"))
		return
	}
	w.WriteHeader(http.StatusAccepted)
}

var errInterrupted = errors.New("interrupted by the user")

func (s *Server) handleInterrupt(w http.ResponseWriter, r *http.Request) {
	sess, ok := s.session(w, r)
	if !ok {
		return
	}
	cancelled, finishing := sess.Interrupt(errInterrupted)
	s.encode(w, r, http.StatusOK, api.InterruptResponse{Cancelled: cancelled, Finishing: finishing})
}
