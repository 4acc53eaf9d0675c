package main

import (
	"net/http"
	"net/http/httptrace"
	"time"
)

// phases is where one call's time went, as its client saw it: building
// and writing the request, then waiting for the answer's first byte (the
// server's work, the loopback both ways and the wake-ups), then reading
// the rest of the answer. It tells a server's own work from what the
// request's and the answer's shapes cost the client: toolgate's POST with
// a JSON body and its answer of about 2 KB, envd's GET and its raw bytes.
type phases struct {
	write, firstByte, rest time.Duration
}

// phaseClock stamps the requests of one client, one at a time: a
// server's calls are sequential.
type phaseClock struct {
	start, wrote, first time.Time
}

// since returns the phases of the call that ended at end.
func (c *phaseClock) since(end time.Time) phases {
	if c.wrote.IsZero() || c.first.IsZero() {
		return phases{}
	}
	return phases{write: c.wrote.Sub(c.start), firstByte: c.first.Sub(c.wrote), rest: end.Sub(c.first)}
}

// stampedTransport stamps each request's start, the end of its writing and
// its answer's first byte on clock.
type stampedTransport struct {
	next  http.RoundTripper
	clock *phaseClock
}

func (t stampedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	c := t.clock
	*c = phaseClock{start: time.Now()}
	trace := &httptrace.ClientTrace{
		WroteRequest:         func(httptrace.WroteRequestInfo) { c.wrote = time.Now() },
		GotFirstResponseByte: func() { c.first = time.Now() },
	}
	return t.next.RoundTrip(req.WithContext(httptrace.WithClientTrace(req.Context(), trace)))
}
