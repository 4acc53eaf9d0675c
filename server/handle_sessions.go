package server

import (
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
)

// session finds the {sid} session; its error is a 404.
func (s *Server) session(r *http.Request) (*coordinator.Session, error) {
	return s.coord.Sessions().Get(chi.URLParam(r, "sid"))
}

// dialectError refuses a dialect toolgate does not speak.
func dialectError() error {
	return &api.Error{Code: api.CodeValidation, Message: "unknown dialect",
		Fields: map[string]string{"dialect": "must be cline, claude_code or anthropic"}}
}

// checkSessionRequest checks the fields a session's create and update
// requests share; absent ones (zero, nil) pass.
func (s *Server) checkSessionRequest(mode api.Mode, dialect api.Dialect, perms *api.Permissions) error {
	if err := s.coord.CheckMode(mode); err != nil {
		return err
	}
	if !api.ValidDialect(dialect) {
		return dialectError()
	}
	if perms == nil {
		return nil
	}
	return s.coord.CheckSessionPermissions(*perms)
}

func (s *Server) handleCreateSession(w http.ResponseWriter, r *http.Request) error {
	var req api.CreateSessionRequest
	if err := s.decode(w, r, &req); err != nil {
		return err
	}
	if err := s.checkSessionRequest(req.Mode, req.Dialect, req.Permissions); err != nil {
		return err
	}
	var perms api.Permissions
	if req.Permissions != nil {
		perms = *req.Permissions
	}
	sess, err := s.coord.Sessions().CreateNamed(req.ID, req.Mode, perms)
	if err != nil {
		return err
	}
	sess.Update(api.UpdateSessionRequest{Dialect: req.Dialect})
	w.Header().Set("Location", "/v1/sessions/"+sess.ID)
	s.encode(w, r, http.StatusCreated, sess.View())
	return nil
}

func (s *Server) handleGetSession(w http.ResponseWriter, r *http.Request) error {
	sess, err := s.session(r)
	if err != nil {
		return err
	}
	s.encode(w, r, http.StatusOK, sess.View())
	return nil
}

func (s *Server) handleUpdateSession(w http.ResponseWriter, r *http.Request) error {
	sess, err := s.session(r)
	if err != nil {
		return err
	}
	var req api.UpdateSessionRequest
	if err := s.decode(w, r, &req); err != nil {
		return err
	}
	if err := s.checkSessionRequest(req.Mode, req.Dialect, req.Permissions); err != nil {
		return err
	}
	if req.Dialect != "" && req.Dialect != api.DialectCline && sess.ID == api.DefaultSessionID {
		return &api.Error{Code: api.CodeValidation, Message: `the "default" session speaks cline; create a session for another dialect`,
			Fields: map[string]string{"dialect": "the default session keeps cline"}}
	}
	sess.Update(req)
	s.encode(w, r, http.StatusOK, sess.View())
	return nil
}

func (s *Server) handleDeleteSession(w http.ResponseWriter, r *http.Request) error {
	if err := s.coord.Sessions().Delete(chi.URLParam(r, "sid")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// handleListSessions lists every live session, those the store restored
// after a restart included, with the calls each has waiting or running.
func (s *Server) handleListSessions(w http.ResponseWriter, r *http.Request) error {
	s.encode(w, r, http.StatusOK, api.SessionsResponse{Sessions: s.coord.Sessions().Summaries()})
	return nil
}
