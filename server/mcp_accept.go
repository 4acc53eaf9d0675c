package server

import (
	"mime"
	"net/http"
	"strings"
)

// acceptEither lets a plain HTTP client post MCP messages. The streamable
// HTTP transport asks a client to accept both application/json and
// text/event-stream on POST, and the SDK refuses anything less with 400;
// but a client that names only one of them (Postman sends
// application/json) or none (which, in HTTP, accepts anything) can read
// the answer the SDK gives either way: one JSON-RPC response, in an event
// stream that ends with it. So such a POST has the missing type added
// before the SDK sees it.
func acceptEither(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			if json, stream := acceptsMCP(r.Header.Values("Accept")); !json || !stream {
				r = r.Clone(r.Context())
				r.Header.Set("Accept", "application/json, text/event-stream")
			}
		}
		next.ServeHTTP(w, r)
	})
}

// acceptsMCP reports which of the two answer types the Accept headers
// name (a wildcard counts for both).
func acceptsMCP(values []string) (json, stream bool) {
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil {
				continue
			}
			switch mt {
			case "application/json":
				json = true
			case "text/event-stream":
				stream = true
			case "*/*", "application/*":
				json, stream = true, true
			}
		}
	}
	return json, stream
}
