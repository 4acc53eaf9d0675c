package server

import (
	"net/http"

	"github.com/toolgate/toolgate/api"
)

// handleCreateTicket mints a short-lived ticket for one session's event
// stream. The session must exist, so a ticket never outlives the check.
func (s *Server) handleCreateTicket(w http.ResponseWriter, r *http.Request) error {
	var req api.SSETicketRequest
	if err := s.decode(w, r, &req); err != nil {
		return err
	}
	if req.Session == "" {
		return &api.Error{Code: api.CodeValidation, Message: "session is required",
			Fields: map[string]string{"session": "is required"}}
	}
	if _, err := s.coord.Sessions().Get(req.Session); err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	s.encode(w, r, http.StatusCreated, api.SSETicket{
		Ticket:    s.tickets.mint(req.Session, principalOf(r.Context())),
		Session:   req.Session,
		ExpiresIn: int(ticketTTL.Seconds()),
	})
	return nil
}
