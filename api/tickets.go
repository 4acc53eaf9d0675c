package api

// SSETicketRequest asks for a ticket to open one session's event stream
// from a client that cannot set headers (the browser's EventSource).
type SSETicketRequest struct {
	Session string `json:"session"`
}

// SSETicket is a single-use credential for GET
// /v1/sessions/{session}/events?ticket=...: good once, for that session
// only, within ExpiresIn seconds.
type SSETicket struct {
	Ticket    string `json:"ticket"`
	Session   string `json:"session"`
	ExpiresIn int    `json:"expires_in"`
}
