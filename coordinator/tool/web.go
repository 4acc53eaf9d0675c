package tool

import (
	"net/netip"
	"time"
)

// Web is what the tools that reach the network (web_fetch,
// browser_action) are allowed, with every default filled in.
type Web struct {
	// AllowPrivate lets them reach loopback, private, link-local and
	// unspecified addresses.
	AllowPrivate bool
	// AllowAddresses are exact ip:port pairs reachable regardless.
	AllowAddresses []netip.AddrPort
	// MaxBytes and Timeout cap one web_fetch.
	MaxBytes int64
	Timeout  time.Duration
	// Browser configures browser_action.
	Browser Browser
}

// Browser is browser_action's headless chromium.
type Browser struct {
	// Chromium is the configured browser path; "" searches the PATH.
	Chromium string
	// Width and Height are the viewport and screenshot size.
	Width, Height int
	// Idle closes a browser no action used for this long; Action bounds
	// one action.
	Idle, Action time.Duration
}
