package coordinator

import (
	"context"
	"sync"
	"time"

	"github.com/toolgate/toolgate/api"
)

// Errors of the streaming executor, as clients see them.
var (
	ErrMessageNotOpen = &api.Error{Code: api.CodeNotFound, Message: "no open streaming message with this id in the session"}
	ErrMessageClosed  = &api.Error{Code: api.CodeConflict, Message: "the message is being completed; it takes no more blocks"}
	ErrBlockRepeated  = &api.Error{Code: api.CodeConflict, Message: "a complete block with this id was already posted to this message"}
	ErrTooManyOpen    = &api.Error{Code: api.CodeTooManyMessages, Message: "too many open streaming messages in this session; complete or discard one first"}
)

// StreamingMessage is an assistant message whose tool_use blocks arrive
// one at a time, as the model finishes them (Claude Code's
// StreamingToolExecutor): each call starts as soon as the ordering rules
// allow, long before the message is complete.
type StreamingMessage struct {
	sc *scheduler
	// after is the session's last event id before the message opened, so
	// an event stream of the message can start from its first event.
	after int64

	// Guarded by openMessages.mu.
	ids     map[string]bool
	closing bool
	touched time.Time
}

// openMessages are a session's streaming messages still taking blocks or
// being completed, bounded by Config.MaxOpenMessages.
type openMessages struct {
	max  int
	idle time.Duration

	mu   sync.Mutex
	byID map[string]*StreamingMessage
}

func newOpenMessages(cfg *Config) *openMessages {
	return &openMessages{max: cfg.MaxOpenMessages, idle: time.Duration(cfg.OpenMessageIdleSeconds) * time.Second,
		byID: map[string]*StreamingMessage{}}
}

// AddBlock takes one tool_use block of a streaming message, opening the
// message on its first block. A complete block is claimed, announced
// (tool.queued) and started as soon as the ordering rules allow; a
// partial block only produces a tool.partial preview.
func (c *Coordinator) AddBlock(s *Session, msgID string, use api.ToolUse) error {
	o := s.open
	o.mu.Lock()
	defer o.mu.Unlock()
	m, ok := o.byID[msgID]
	if !ok {
		if err := o.makeRoomLocked(); err != nil {
			return err
		}
		m = &StreamingMessage{sc: c.newScheduler(s, msgID), after: s.Events.LastID(), ids: map[string]bool{}}
		o.byID[msgID] = m
	}
	switch {
	case m.closing:
		return ErrMessageClosed
	case m.ids[use.ID]:
		return ErrBlockRepeated
	}
	m.touched = time.Now()
	if use.Partial {
		block := use
		s.Events.Append(api.Event{Type: api.EventToolPartial, MessageID: msgID, ToolUseID: use.ID, Block: &block, Preview: c.previewPartial(s, use)})
		return nil
	}
	m.ids[use.ID] = true
	// Held across add so a completion never misses a block that passed
	// the checks above.
	m.sc.add(use)
	return nil
}

// makeRoomLocked lets a new message open: at the bound, idle messages
// untouched for longer than the idle time are forgotten (their calls
// stay in the session's records); if none is, the new one is refused.
func (o *openMessages) makeRoomLocked() error {
	if len(o.byID) < o.max {
		return nil
	}
	for id, m := range o.byID {
		if !m.closing && time.Since(m.touched) > o.idle && m.sc.idle() {
			delete(o.byID, id)
		}
	}
	if len(o.byID) >= o.max {
		return ErrTooManyOpen
	}
	return nil
}

// CompleteMessage ends a streaming message's input: it takes no more
// blocks. Wait on the result for the answer.
func (c *Coordinator) CompleteMessage(s *Session, msgID string) (*StreamingMessage, error) {
	o := s.open
	o.mu.Lock()
	defer o.mu.Unlock()
	m, ok := o.byID[msgID]
	if !ok {
		return nil, ErrMessageNotOpen
	}
	if m.closing {
		return nil, ErrMessageClosed
	}
	m.closing = true
	return m, nil
}

// EventsAfter is the last session event id before the message opened:
// reading the event log after it yields every event of the message still
// kept.
func (m *StreamingMessage) EventsAfter() int64 { return m.after }

// Wait waits for every call of a completed message and answers like
// RunMessage; message.finished is emitted and the message closes. ctx
// only bounds the wait for calls another message started.
func (m *StreamingMessage) Wait(ctx context.Context) api.MessageResponse {
	resp := m.sc.c.finishMessage(ctx, m.sc)
	o := m.sc.s.open
	o.mu.Lock()
	if o.byID[m.sc.msgID] == m {
		delete(o.byID, m.sc.msgID)
	}
	o.mu.Unlock()
	return resp
}

// DiscardMessage drops a streaming message (the client fell back to a
// non-streaming request): calls not yet started are cancelled, running
// cancel-kind calls are cancelled, block-kind calls finish, and then the
// message's calls are forgotten, so no result of it is served and its
// tool_use ids may be posted again. Each call still emits tool.finished.
// It returns once that is done or ctx ends; the forgetting happens either
// way.
func (c *Coordinator) DiscardMessage(ctx context.Context, s *Session, msgID string) error {
	o := s.open
	o.mu.Lock()
	m, ok := o.byID[msgID]
	delete(o.byID, msgID)
	o.mu.Unlock()
	if !ok {
		return ErrMessageNotOpen
	}
	sc := m.sc
	sc.mu.Lock()
	sc.abortLocked(errDiscarded)
	sc.mu.Unlock()
	forgotten := make(chan struct{})
	go func() {
		defer close(forgotten)
		sc.settle()
		s.forget(sc.ids())
	}()
	select {
	case <-forgotten:
	case <-ctx.Done():
	}
	return nil
}

// interrupt marks every open message, so blocks that arrive after an
// interrupt are cancelled as they come.
func (o *openMessages) interrupt(cause error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, m := range o.byID {
		m.sc.interrupt(cause)
	}
}
