// Package api holds toolgate's wire types: the Anthropic Messages API blocks
// a client posts and receives, the request and response bodies of the v1
// HTTP routes, the server-sent events, and the one error shape clients see.
// It depends on the standard library only, so clients can import it alone.
package api
