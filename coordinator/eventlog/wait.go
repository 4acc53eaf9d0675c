package eventlog

import (
	"context"
	"errors"

	"github.com/toolgate/toolgate/api"
)

// ErrClosed is WaitFor's error when the log ends before a match.
var ErrClosed = errors.New("the event log has ended")

// WaitFor returns the first event after the cursor that match selects,
// waiting for it until ctx ends or the log closes.
func (l *Log) WaitFor(ctx context.Context, after int64, match func(api.Event) bool) (api.Event, error) {
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
			return api.Event{}, ErrClosed
		}
		select {
		case <-b.Wake:
		case <-ctx.Done():
			return api.Event{}, ctx.Err()
		}
	}
}
