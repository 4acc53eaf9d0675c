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

// Defaults of Web. The coordinator's config fills its web_fetch and
// browser settings from these; a registry built without network settings
// (tests of other tools) gets DefaultWeb.
const (
	DefaultWebFetchMaxBytes = 5 << 20
	DefaultWebFetchTimeout  = 30 * time.Second
	// Cline's default viewport (BrowserSettings).
	DefaultViewportWidth  = 900
	DefaultViewportHeight = 600
	DefaultBrowserIdle    = 5 * time.Minute
	DefaultBrowserAction  = 30 * time.Second
)

// DefaultWeb is Web with every setting at its default: no private
// addresses, the default caps and viewport.
func DefaultWeb() Web {
	return Web{MaxBytes: DefaultWebFetchMaxBytes, Timeout: DefaultWebFetchTimeout,
		Browser: Browser{Width: DefaultViewportWidth, Height: DefaultViewportHeight, Idle: DefaultBrowserIdle, Action: DefaultBrowserAction}}
}
