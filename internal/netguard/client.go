package netguard

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// maxRedirects bounds how many redirects one fetch follows.
const maxRedirects = 10

// Client returns an HTTP client that reaches only what g allows: no proxy
// from the environment (a proxy would dial on the client's behalf,
// unchecked), every redirect checked like the first URL, every connection
// checked after DNS. timeout bounds the whole exchange, body included.
func (g Guard) Client(timeout time.Duration) *http.Client {
	dialer := &net.Dialer{Timeout: timeout, Control: g.Control}
	transport := &http.Transport{
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		TLSHandshakeTimeout:   timeout,
		ResponseHeaderTimeout: timeout,
		MaxIdleConns:          1,
		IdleConnTimeout:       time.Second,
	}
	return &http.Client{
		Timeout:   timeout,
		Transport: transport,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= maxRedirects {
				return fmt.Errorf("stopped after %d redirects", maxRedirects)
			}
			if err := g.CheckURL(req.URL); err != nil {
				return &RedirectError{To: req.URL.Redacted(), Err: err}
			}
			return nil
		},
	}
}

// RedirectError is a redirect to a URL the guard refuses.
type RedirectError struct {
	To  string
	Err error
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("the page redirected to %s, which is refused: %v", e.To, e.Err)
}

func (e *RedirectError) Unwrap() error { return e.Err }

// Refused returns the refusal inside err, if the guard refused something.
func Refused(err error) (*RefusedError, bool) {
	var r *RefusedError
	ok := errors.As(err, &r)
	return r, ok
}
