package server

import (
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
)

// session finds the {sid} session or answers 404.
func (s *Server) session(w http.ResponseWriter, r *http.Request) (*coordinator.Session, bool) {
	sess, err := s.coord.Sessions().Get(chi.URLParam(r, "sid"))
	if err != nil {
		s.writeError(w, r, err)
		return nil, false
	}
	return sess, true
}

func validMode(m api.Mode) bool { return m == "" || m == api.ModeAct || m == api.ModePlan }

func modeError() error {
	return &api.Error{Code: api.CodeValidation, Message: "mode must be act or plan", Fields: map[string]string{"mode": "must be act or plan"}}
}

// dialectError refuses a dialect toolgate does not speak.
func dialectError() error {
	return &api.Error{Code: api.CodeValidation, Message: "unknown dialect",
		Fields: map[string]string{"dialect": "must be cline, claude_code or anthropic"}}
}

func (s *Server) handleCreateSession(w http.ResponseWriter, r *http.Request) {
	var req api.CreateSessionRequest
	if err := s.decode(w, r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	if !validMode(req.Mode) {
		s.writeError(w, r, modeError())
		return
	}
	if !api.ValidDialect(req.Dialect) {
		s.writeError(w, r, dialectError())
		return
	}
	var perms api.Permissions
	if req.Permissions != nil {
		perms = *req.Permissions
	}
	if err := s.coord.CheckSessionPermissions(perms); err != nil {
		s.writeError(w, r, err)
		return
	}
	sess, err := s.coord.Sessions().Create(req.Mode, perms)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	sess.Update(api.UpdateSessionRequest{Dialect: req.Dialect})
	w.Header().Set("Location", "/v1/sessions/"+sess.ID)
	s.encode(w, r, http.StatusCreated, sess.View())
}

func (s *Server) handleGetSession(w http.ResponseWriter, r *http.Request) {
	if sess, ok := s.session(w, r); ok {
		s.encode(w, r, http.StatusOK, sess.View())
	}
}

func (s *Server) handleUpdateSession(w http.ResponseWriter, r *http.Request) {
	sess, ok := s.session(w, r)
	if !ok {
		return
	}
	var req api.UpdateSessionRequest
	if err := s.decode(w, r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	if !validMode(req.Mode) {
		s.writeError(w, r, modeError())
		return
	}
	if !api.ValidDialect(req.Dialect) {
		s.writeError(w, r, dialectError())
		return
	}
	if req.Dialect != "" && req.Dialect != api.DialectCline && sess.ID == api.DefaultSessionID {
		s.writeError(w, r, &api.Error{Code: api.CodeValidation, Message: `the "default" session speaks cline; create a session for another dialect`,
			Fields: map[string]string{"dialect": "the default session keeps cline"}})
		return
	}
	if req.Permissions != nil {
		if err := s.coord.CheckSessionPermissions(*req.Permissions); err != nil {
			s.writeError(w, r, err)
			return
		}
	}
	sess.Update(req)
	s.encode(w, r, http.StatusOK, sess.View())
}

func (s *Server) handleDeleteSession(w http.ResponseWriter, r *http.Request) {
	if err := s.coord.Sessions().Delete(chi.URLParam(r, "sid")); err != nil {
		s.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
