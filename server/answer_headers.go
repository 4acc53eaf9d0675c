package server

import (
	"net/http"
	"strconv"
	"sync/atomic"
	"time"
)

// The headers of a JSON answer are set here in the bytes net/http would
// write for them, at less cost on every answer's path: the Date (of an
// answer with no other header) from a value formatted once a second
// instead of net/http formatting the time for each answer, the
// Content-Type a value shared by all answers, the header names put in
// the map as they are (canonical already). Speed
// only: BenchmarkAnswerHeaders (./server/, docs/benchmarks.md);
// TestAnswerHeadersOnTheWire holds the answer's bytes to those before.

// jsonContentType is every JSON answer's Content-Type value. Shared
// read-only: net/http copies a handler's header values (Header.Clone)
// and only reads them; an Add to it appends beyond its capacity, to a
// new array.
var jsonContentType = []string{"application/json"}[:1:1]

// dateValue is a Date header value and the second it says.
type dateValue struct {
	unix  int64
	value []string // shared read-only, as jsonContentType
}

// answerDate is the Date value of the current second, the last made.
var answerDate atomic.Pointer[dateValue]

// dateHeader is the Date header value net/http writes for now
// (http.TimeFormat, UTC), made once a second.
func dateHeader(now time.Time) []string {
	sec := now.Unix()
	if d := answerDate.Load(); d != nil && d.unix == sec {
		return d.value
	}
	d := &dateValue{unix: sec, value: []string{now.UTC().Format(http.TimeFormat)}[:1:1]}
	answerDate.Store(d)
	return d.value
}

// setJSONHeaders sets a JSON answer's Content-Type and Content-Length (n
// bytes) headers in h, and its Date when they are its only headers.
// net/http writes a handler's headers sorted and its own Date after
// them: a Date among them would go before any that sorts after it (a
// Location, CORS's Vary), and the answer's bytes would change; with no
// other header, it goes last either way.
func setJSONHeaders(h http.Header, n int) {
	h["Content-Type"] = jsonContentType
	h["Content-Length"] = []string{strconv.Itoa(n)}
	if len(h) == 2 {
		h["Date"] = dateHeader(time.Now())
	}
}
