package coordinator

import (
	"context"
	"errors"

	"github.com/toolgate/toolgate/api"
)

// ErrLogClosed is WaitFor's error when the log ends before a match.
var ErrLogClosed = errors.New("the event log has ended")

// WaitFor returns the first event after the cursor that match selects,
// waiting for it until ctx ends or the log closes.
func (l *EventLog) WaitFor(ctx context.Context, after int64, match func(api.Event) bool) (api.Event, error) {
	for {
		b := l.Read(after, 256)
		for _, ev := range b.Events {
			if match(ev) {
				return ev, nil
			}
		}
		after = b.Next
		if len(b.Events) > 0 {
			continue
		}
		if b.Closed {
			return api.Event{}, ErrLogClosed
		}
		select {
		case <-b.Wake:
		case <-ctx.Done():
			return api.Event{}, ctx.Err()
		}
	}
}
