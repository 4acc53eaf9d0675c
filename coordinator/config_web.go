package coordinator

import (
	"net/netip"
	"time"

	"github.com/toolgate/toolgate/coordinator/tool"
)

// WebFetchConfig configures web_fetch, and the address rules browser_action
// shares with it.
type WebFetchConfig struct {
	// AllowPrivate lets fetches and browser navigation reach loopback,
	// private (RFC 1918, fc00::/7), link-local (169.254.169.254 included)
	// and unspecified addresses. Off by default: a model must not reach
	// the machine's own services or a cloud metadata endpoint.
	AllowPrivate bool `json:"allow_private,omitempty"`
	// AllowAddresses are exact "ip:port" pairs reachable although private
	// addresses are not, such as a local development server.
	AllowAddresses []netip.AddrPort `json:"allow_addresses,omitempty"`
	// MaxBytes caps a fetched body (default 5 MiB).
	MaxBytes int64 `json:"max_bytes,omitempty"`
	// Timeout bounds one fetch, redirects and body included (default 30s).
	Timeout Duration `json:"timeout,omitempty"`
}

// Limits returns the size and time caps of one fetch. A config from
// DefaultConfig, a loaded file or New has them filled in
// (config_defaults.go).
func (w WebFetchConfig) Limits() (int64, time.Duration) {
	return w.MaxBytes, time.Duration(w.Timeout)
}

// webEnv is what the network tools get of the config, whose defaults New
// has filled in.
func (c *Config) webEnv() *tool.Web {
	size, timeout := c.WebFetch.Limits()
	b := c.Browser
	return &tool.Web{AllowPrivate: c.WebFetch.AllowPrivate, AllowAddresses: c.WebFetch.AllowAddresses, MaxBytes: size, Timeout: timeout,
		Browser: tool.Browser{Chromium: b.Chromium, Width: b.ViewportWidth, Height: b.ViewportHeight,
			Idle: time.Duration(b.IdleTimeout), Action: time.Duration(b.ActionTimeout)}}
}

// BrowserConfig configures browser_action's headless chromium.
type BrowserConfig struct {
	// Chromium is the browser to run (default: chromium on PATH, then
	// /usr/bin/chromium).
	Chromium string `json:"chromium,omitempty"`
	// ViewportWidth and ViewportHeight size the page and its screenshots
	// (default 900x600, Cline's).
	ViewportWidth  int `json:"viewport_width,omitempty"`
	ViewportHeight int `json:"viewport_height,omitempty"`
	// IdleTimeout closes a browser no action has used for this long
	// (default 5m).
	IdleTimeout Duration `json:"idle_timeout,omitempty"`
	// ActionTimeout bounds one action, page load included (default 30s).
	ActionTimeout Duration `json:"action_timeout,omitempty"`
}
