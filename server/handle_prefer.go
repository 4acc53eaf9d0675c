package server

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
)

// A plain HTTP client posting a call that needs approval would otherwise
// hear nothing until someone decides it, which looks like a hung server.
// Prefer (RFC 7240) lets it choose: respond-async answers 202 as soon as a
// call of the request waits for a person; wait=N answers 202 once a call
// has waited N seconds. Either way the calls go on in the session, and the
// 202 names the waiting call, its URL and where to decide it. A client
// that sends neither keeps the old behaviour (the answer comes when the
// calls end), so IDE extensions watching the event stream are unchanged.

// maxPreferWait bounds wait=N: longer is the same as no preference.
const maxPreferWait = 10 * time.Minute

// preference is what a request's Prefer header asks of a call route.
type preference struct {
	async bool          // respond-async
	wait  time.Duration // wait=N; 0 when not given
}

// preferenceOf reads the Prefer headers; ok is false when they ask for
// neither respond-async nor wait.
func preferenceOf(r *http.Request) (p preference, ok bool) {
	for _, h := range r.Header.Values("Prefer") {
		for _, part := range strings.Split(h, ",") {
			name, value, _ := strings.Cut(strings.TrimSpace(part), "=")
			switch strings.ToLower(strings.TrimSpace(name)) {
			case "respond-async":
				p.async, ok = true, true
			case "wait":
				n, err := strconv.Atoi(strings.Trim(strings.TrimSpace(value), `"`))
				if err == nil && n >= 0 && time.Duration(n)*time.Second <= maxPreferWait {
					p.wait, ok = time.Duration(n)*time.Second, true
				}
			}
		}
	}
	return p, ok
}

// applied is the Preference-Applied value for p.
func (p preference) applied() string {
	if p.wait > 0 {
		return "wait=" + strconv.Itoa(int(p.wait/time.Second))
	}
	return "respond-async"
}

// answerPreferring runs calls in the session and answers as the client
// prefers: with the whole answer (200) if they end first, else with 202
// once one of them (match picks the request's events after the event id
// after) has waited for a person as long as the preference allows. run
// returns the body of the 200; it runs under the session, so a 202 does
// not stop the calls.
func (s *Server) answerPreferring(w http.ResponseWriter, r *http.Request, sess *coordinator.Session, p preference,
	msgID string, after int64, match func(api.Event) bool, run func(ctx context.Context) any) {
	done := make(chan any, 1)
	runCtx := context.WithoutCancel(r.Context()) // keeps request id and trace; the session bounds the calls
	go func() { done <- run(runCtx) }()

	waitCtx, stop := context.WithCancel(r.Context())
	defer stop()
	waiting := make(chan api.Event, 1)
	go func() {
		// From the log's start: a re-posted message (or call) whose calls
		// already wait had its waiting event before this request, and
		// would otherwise hold the request until someone decides. Such an
		// earlier event counts only while its call still waits.
		ev, err := sess.Events.WaitFor(waitCtx, 0, func(ev api.Event) bool {
			if ev.Type != api.EventToolAwaitingApproval && ev.Type != api.EventToolAwaitingInput || !match(ev) {
				return false
			}
			return ev.ID > after || stillWaiting(sess, ev.ToolUseID)
		})
		if err == nil {
			waiting <- ev
		}
	}()
	var ev api.Event
	select {
	case body := <-done:
		s.encode(w, r, http.StatusOK, body)
		return
	case ev = <-waiting:
	case <-r.Context().Done():
		return
	}
	if p.wait > 0 && !p.async {
		t := time.NewTimer(p.wait)
		defer t.Stop()
		select {
		case body := <-done:
			s.encode(w, r, http.StatusOK, body)
			return
		case <-t.C:
		case <-r.Context().Done():
			return
		}
	}
	pending := s.pendingResponse(sess, msgID, ev)
	w.Header().Set("Preference-Applied", p.applied())
	w.Header().Set("Location", pending.Waiting.CallURL)
	s.encode(w, r, http.StatusAccepted, pending)
}

// ofMessage matches the events of a message's calls: by the message id,
// or by a call's id when the call was first posted elsewhere (a re-post of
// a call that already waits keeps its first message id).
func ofMessage(msgID string, uses []api.ToolUse) func(api.Event) bool {
	ids := make(map[string]bool, len(uses))
	for _, u := range uses {
		ids[u.ID] = true
	}
	return func(ev api.Event) bool { return ev.MessageID == msgID || ids[ev.ToolUseID] }
}

// stillWaiting reports whether the call waits for a person now.
func stillWaiting(sess *coordinator.Session, toolUseID string) bool {
	rec, _, ok := sess.Call(toolUseID)
	return ok && (rec.State == api.StateAwaitingApproval || rec.State == api.StateAwaitingInput)
}

// pendingResponse describes the call that waits and its message's calls.
func (s *Server) pendingResponse(sess *coordinator.Session, msgID string, ev api.Event) api.PendingResponse {
	base := "/v1/sessions/" + url.PathEscape(sess.ID) + "/calls/" + url.PathEscape(ev.ToolUseID)
	pc := api.PendingCall{ToolUseID: ev.ToolUseID, State: api.StateAwaitingApproval, CallURL: base, Approval: ev.Approval}
	if ev.Call != nil {
		pc.Name, pc.State = ev.Call.Name, ev.Call.State
	}
	if ev.Type == api.EventToolAwaitingInput {
		pc.State, pc.AnswerURL = api.StateAwaitingInput, base+"/answer"
	} else {
		pc.DecisionURL = base + "/decision"
	}
	if msgID == "" {
		msgID = ev.MessageID
	}
	resp := api.PendingResponse{MessageID: msgID, Waiting: pc, Calls: []api.CallRecord{}}
	for _, c := range sess.Calls("") {
		if c.MessageID == msgID {
			resp.Calls = append(resp.Calls, c)
		}
	}
	return resp
}
