package coordinator

import (
	"context"
	"fmt"
	"testing"

	"github.com/toolgate/toolgate/internal/benchpair"
)

// BenchmarkCallContext makes and releases a call's context as claim and
// finish do (its own root, which close cancels by hand) against a child
// of the session's context, as claim made it before (the child joins its
// parent's set and leaves it again), each pair of them timed alone with
// the caches cold (benchpair.Cold): the previous call's context is
// released, the next made and asked for its error, as start does.
//
//	go test -run '^$' -bench CallContext -benchtime 2000x -count 3 ./coordinator/
func BenchmarkCallContext(b *testing.B) {
	session, stop := context.WithCancel(context.Background())
	defer stop()
	_ = session.Done() // Session.Done has made its channel
	for _, mib := range []int{4, 64} {
		b.Run(fmt.Sprintf("evict=%dMiB", mib), func(b *testing.B) {
			var fastCtx, plainCtx context.Context
			fastCancel, plainCancel := context.CancelCauseFunc(func(error) {}), context.CancelCauseFunc(func(error) {})
			benchpair.Cold(b, mib<<20, func() {
				fastCancel(nil)
				fastCtx, fastCancel = context.WithCancelCause(context.Background())
				if session.Err() != nil {
					fastCancel(context.Cause(session))
				}
				_ = fastCtx.Err()
			}, func() {
				plainCancel(nil)
				plainCtx, plainCancel = context.WithCancelCause(session)
				_ = plainCtx.Err()
			})
		})
	}
}
