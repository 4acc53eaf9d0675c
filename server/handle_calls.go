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

func (s *Server) handleListCalls(w http.ResponseWriter, r *http.Request) error {
	sess, err := s.session(r)
	if err != nil {
		return err
	}
	state := api.CallState(r.URL.Query().Get("state"))
	if state != "" && !validStates[state] {
		return &api.Error{Code: api.CodeValidation, Message: "unknown state",
			Fields: map[string]string{"state": "must be one of queued, running, awaiting_approval, awaiting_input, done"}}
	}
	s.encode(w, r, http.StatusOK, api.CallsResponse{Calls: sess.Calls(state)})
	return nil
}

func (s *Server) handleGetCall(w http.ResponseWriter, r *http.Request) error {
	sess, err := s.session(r)
	if err != nil {
		return err
	}
	rec, res, found := sess.Call(chi.URLParam(r, "tool_use_id"))
	if !found {
		return errorf(api.CodeNotFound, "no such call in this session")
	}
	s.encode(w, r, http.StatusOK, api.CallResponse{Call: rec, Result: res})
	return nil
}

var errCancelledByClient = errors.New("cancelled by the client")

func (s *Server) handleCancelCall(w http.ResponseWriter, r *http.Request) error {
	sess, err := s.session(r)
	if err != nil {
		return err
	}
	id := chi.URLParam(r, "tool_use_id")
	if !sess.HasCall(id) {
		return errorf(api.CodeNotFound, "no such call in this session")
	}
	if !sess.Cancel(id, errCancelledByClient) {
		return errorf(api.CodeConflict, "the call is not running")
	}
	w.WriteHeader(http.StatusAccepted)
	return nil
}

var errInterrupted = errors.New("interrupted by the user")

func (s *Server) handleInterrupt(w http.ResponseWriter, r *http.Request) error {
	sess, err := s.session(r)
	if err != nil {
		return err
	}
	cancelled, finishing := sess.Interrupt(errInterrupted)
	s.encode(w, r, http.StatusOK, api.InterruptResponse{Cancelled: cancelled, Finishing: finishing})
	return nil
}
