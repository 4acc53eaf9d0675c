package coordinator

import "context"

type requestIDKey struct{}

// WithRequestID marks ctx as serving the HTTP request id, so the log lines
// of the calls that request starts carry it: one id joins the request's
// log line to its calls'.
func WithRequestID(ctx context.Context, id string) context.Context {
	if id == "" {
		return ctx
	}
	return context.WithValue(ctx, requestIDKey{}, id)
}

// WithRequestIDAlso is WithRequestID that also answers ctx.Value(alias)
// with the id (the server's router key for it), in one context where
// WithRequestID over context.WithValue made two, each boxing the id
// again. Speed only: BenchmarkFront (./server/, docs/benchmarks.md).
func WithRequestIDAlso(ctx context.Context, id string, alias any) context.Context {
	if id == "" {
		return ctx
	}
	return &requestIDCtx{Context: ctx, id: id, alias: alias}
}

// requestIDCtx carries a request id under requestIDKey and alias.
type requestIDCtx struct {
	context.Context
	id    any // the id, boxed once for every lookup
	alias any
}

// Value answers the id's keys and passes on the rest.
func (c *requestIDCtx) Value(key any) any {
	if key == (requestIDKey{}) || key == c.alias {
		return c.id
	}
	return c.Context.Value(key)
}

// requestIDFrom is the request id WithRequestID put in ctx, or "".
func requestIDFrom(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}
