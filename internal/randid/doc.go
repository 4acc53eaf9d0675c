// Package randid makes every random identifier and secret toolgate hands
// out: session, message and call ids, bearer and scoped tokens, console
// tickets, temporary file names, notebook cell ids. It owns the one source
// of their randomness, crypto/rand, whose Read never fails on the
// platforms Go supports (it ends the program rather than return short),
// so callers get a string and no error to mishandle.
//
// It is a library under internal/ and imports no layer of toolgate.
package randid
