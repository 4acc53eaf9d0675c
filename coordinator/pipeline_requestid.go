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

// requestIDFrom is the request id WithRequestID put in ctx, or "".
func requestIDFrom(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}
