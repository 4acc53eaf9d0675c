package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5/middleware"
	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
)

func (s *Server) handlePostMessage(w http.ResponseWriter, r *http.Request) error {
	sess, err := s.session(r)
	if err != nil {
		return err
	}
	// An Anthropic message first: a body that decodes as one holds none
	// of the keys openAIBody looks for (TestMessageKeysAreNotOpenAIKeys),
	// so only a body that does not is probed for OpenAI's shapes. The
	// usual body is read and decoded once.
	var whole apiMessage
	body, err := s.decodeKeeping(w, r, &whole)
	if body == nil {
		return err
	}
	if err != nil {
		format, openAI, oerr := openAIBody(body)
		if oerr != nil {
			return oerr
		}
		if format != "" {
			return s.runOpenAI(w, r, sess, format, openAI)
		}
		return decodeError(err)
	}
	if whole.Type != "" && whole.Type != "message" {
		return &api.Error{Code: api.CodeValidation, Message: `type must be "message"`, Fields: map[string]string{"type": `must be "message"`}}
	}
	msg := whole.AssistantMessage
	uses, err := toolUses(msg)
	if err != nil {
		return err
	}
	msgID := msg.ID
	if msgID == "" {
		msgID = newMessageID()
	}
	if p, ok := preferenceOf(r); ok && !wantsEventStream(r) {
		s.answerPreferring(w, r, sess, p, msgID, sess.Events.LastID(), ofMessage(msgID, uses),
			func(ctx context.Context) any { return s.coord.RunMessage(ctx, sess, msgID, uses) })
		return nil
	}
	if !wantsEventStream(r) {
		s.encode(w, r, http.StatusOK, s.coord.RunMessage(r.Context(), sess, msgID, uses))
		return nil
	}
	// The calls run whether or not this client stays: they belong to the
	// session.
	after := sess.Events.LastID()
	go s.coord.RunMessage(coordinator.WithRequestID(sess.Context(), middleware.GetReqID(r.Context())), sess, msgID, uses)
	s.streamMessage(w, r, sess, msgID, after)
	return nil
}

// streamMessage answers a message as SSE: its events after the given id,
// ending with message.finished.
func (s *Server) streamMessage(w http.ResponseWriter, r *http.Request, sess *coordinator.Session, msgID string, after int64) {
	defer sess.Hold()()
	s.streams.serve(w, r, streamSpec{
		log:       sess.Events,
		after:     after,
		messageID: msgID,
		last:      func(ev api.Event) bool { return ev.Type == api.EventMessageFinished },
		done:      sess.Done(),
	})
}

func wantsEventStream(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept"), "text/event-stream")
}

// toolUses picks the tool_use blocks out of an assistant message. Other
// block types are ignored; a tool_use block that cannot be answered, or two
// blocks with one id, make the request invalid.
func toolUses(msg api.AssistantMessage) ([]api.ToolUse, error) {
	if msg.Role != "assistant" {
		return nil, &api.Error{Code: api.CodeValidation, Message: `role must be "assistant"`, Fields: map[string]string{"role": `must be "assistant"`}}
	}
	var uses []api.ToolUse
	var seen map[string]bool // made for a second block: most messages hold one
	for i, raw := range msg.Content {
		use, isToolUse, err := toolUseBlock(i, raw)
		if err != nil {
			return nil, err
		}
		if !isToolUse {
			continue
		}
		if !wellFormed(use) { // the field names are made for an invalid block only
			return nil, checkToolUse(use, fmt.Sprintf("content[%d].", i))
		}
		if len(uses) == 1 {
			seen = map[string]bool{uses[0].ID: true}
		}
		if seen[use.ID] {
			return nil, &api.Error{Code: api.CodeValidation, Message: "two tool_use blocks share the id " + use.ID,
				Fields: map[string]string{fmt.Sprintf("content[%d].id", i): "duplicates an earlier block's id"}}
		}
		if seen != nil {
			seen[use.ID] = true
		}
		uses = append(uses, use)
	}
	return uses, nil
}

// toolUseBlock decodes content block i and reports whether it is a
// tool_use. A well-formed tool_use block, the usual case, is decoded
// once; only a block that fails that is looked at again, to tell a block
// without a type and a broken tool_use from a block of another type.
func toolUseBlock(i int, raw json.RawMessage) (api.ToolUse, bool, error) {
	var use api.ToolUse
	if unmarshalFast(raw, &use) && use.Type != "" {
		return use, use.Type == api.TypeToolUse, nil
	}
	clearValue(&use)
	if err := json.Unmarshal(raw, &use); err == nil && use.Type != "" {
		return use, use.Type == api.TypeToolUse, nil
	}
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(raw, &head); err != nil || head.Type == "" {
		return use, false, &api.Error{Code: api.CodeValidation, Message: "every content block needs a type",
			Fields: map[string]string{fmt.Sprintf("content[%d].type", i): "is required"}}
	}
	if head.Type != api.TypeToolUse {
		return use, false, nil
	}
	use = api.ToolUse{}
	if err := json.NewDecoder(bytes.NewReader(raw)).Decode(&use); err != nil {
		return use, false, &api.Error{Code: api.CodeValidation, Message: fmt.Sprintf("content[%d] is not a valid tool_use block: %v", i, err)}
	}
	return use, true, nil
}

// apiMessage is an assistant message as the Messages API returns it
// (@anthropic-ai/sdk resources/messages/messages.d.ts, Message): a client
// may post the Message it got unchanged. Only id, role and content are
// read; the other fields the API sets are passed over, and any other
// field is still refused.
type apiMessage struct {
	api.AssistantMessage
	Type         string          `json:"type,omitempty"`
	Model        json.RawMessage `json:"model,omitempty"`
	StopReason   json.RawMessage `json:"stop_reason,omitempty"`
	StopSequence json.RawMessage `json:"stop_sequence,omitempty"`
	StopDetails  json.RawMessage `json:"stop_details,omitempty"`
	Usage        json.RawMessage `json:"usage,omitempty"`
	Container    json.RawMessage `json:"container,omitempty"`
	Diagnostics  json.RawMessage `json:"diagnostics,omitempty"`
}

func newMessageID() string { return coordinator.NewID("msg_") }
