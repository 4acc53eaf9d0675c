package server

import (
	"context"
	"net/http"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
)

// handleListTools lists a tool pool: a session's (?session=), a
// dialect's (?dialect=), else the default cline pool, in toolgate's own
// format or the one ?format= names.
func (s *Server) handleListTools(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	format, d := q.Get("format"), api.Dialect(q.Get("dialect"))
	if !validFormat(format) {
		return &api.Error{Code: api.CodeValidation, Message: "unknown tool list format",
			Fields: map[string]string{"format": "must be anthropic, openai or openai-responses"}}
	}
	if !api.ValidDialect(d) {
		return dialectError()
	}
	strict, err := strictParam(q.Get("strict"), format)
	if err != nil {
		return err
	}
	var sess *coordinator.Session
	if id := q.Get("session"); id != "" {
		if sess, err = s.coord.Sessions().Get(id); err != nil {
			return err
		}
		if d != "" && d != sess.Dialect() {
			return &api.Error{Code: api.CodeValidation, Message: "the session speaks another dialect",
				Fields: map[string]string{"dialect": "must be the session's dialect, " + string(sess.Dialect())}}
		}
	}
	var tools []api.ToolInfo
	dialect := d
	if sess != nil {
		tools, dialect = s.coord.Tools(sess), sess.Dialect()
	} else {
		tools = s.coord.Pool(d, nil)
	}
	// Cline's client-side tools belong to its vocabulary only.
	clientSide := []string{}
	if dialect == "" || dialect == api.DialectCline {
		clientSide = s.coord.ClientSide()
	}
	s.encode(w, r, http.StatusOK, formatTools(api.ToolsResponse{Tools: tools, ClientSide: clientSide, Errors: s.coord.ToolErrors()}, format, strict))
	return nil
}

// strictParam reads ?strict=, which only the OpenAI formats have.
func strictParam(v, format string) (bool, error) {
	switch {
	case v == "" || v == "false":
		return false, nil
	case v != "true":
		return false, &api.Error{Code: api.CodeValidation, Message: "strict must be true or false",
			Fields: map[string]string{"strict": "must be true or false"}}
	case format != formatOpenAI && format != formatOpenAIResponses:
		return false, &api.Error{Code: api.CodeValidation, Message: "strict applies to the OpenAI formats",
			Fields: map[string]string{"strict": "needs format openai or openai-responses"}}
	}
	return true, nil
}

// handleToolUse runs one tool_use block in the default session.
func (s *Server) handleToolUse(w http.ResponseWriter, r *http.Request) error {
	var use api.ToolUse
	if err := s.decode(w, r, &use); err != nil {
		return err
	}
	if err := checkToolUse(use, ""); err != nil {
		return err
	}
	sess, err := s.coord.Sessions().Get(api.DefaultSessionID)
	if err != nil {
		return err
	}
	if p, ok := preferenceOf(r); ok {
		s.answerPreferring(w, r, sess, p, "", sess.Events.LastID(), func(ev api.Event) bool { return ev.ToolUseID == use.ID },
			func(ctx context.Context) any {
				res, rec := s.coord.Execute(ctx, sess, "", use)
				return api.ToolUseResponse{Result: res, Call: rec}
			})
		return nil
	}
	res, rec := s.coord.Execute(r.Context(), sess, "", use)
	s.encode(w, r, http.StatusOK, api.ToolUseResponse{Result: res, Call: rec})
	return nil
}

// checkToolUse refuses blocks that cannot be answered at all: without an id
// there is no tool_result to give. Everything else about a call (unknown
// name, bad input) is the model's mistake and is answered as a result.
func checkToolUse(use api.ToolUse, prefix string) error {
	if wellFormed(use) {
		return nil
	}
	fields := map[string]string{}
	if use.Type != api.TypeToolUse {
		fields[prefix+"type"] = `must be "tool_use"`
	}
	if use.ID == "" {
		fields[prefix+"id"] = "is required"
	} else if len(use.ID) > 256 {
		fields[prefix+"id"] = "must be at most 256 characters"
	}
	if use.Name == "" {
		fields[prefix+"name"] = "is required"
	}
	return &api.Error{Code: api.CodeValidation, Message: "invalid tool_use block", Fields: fields}
}

// wellFormed reports a tool_use block checkToolUse lets through.
func wellFormed(use api.ToolUse) bool {
	return use.Type == api.TypeToolUse && use.ID != "" && len(use.ID) <= 256 && use.Name != ""
}
