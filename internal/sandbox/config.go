package sandbox

import (
	"fmt"
	"github.com/toolgate/toolgate/internal/sandbox/helper"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
)

// Modes a configuration may ask for.
const (
	// ModeAuto (the default, also "") uses bubblewrap with Landlock inside,
	// Landlock alone where bubblewrap cannot run, and refuses commands
	// where neither works.
	ModeAuto = "auto"
	// ModeBwrap requires bubblewrap; ModeLandlock uses Landlock alone.
	ModeBwrap    = "bwrap"
	ModeLandlock = "landlock"
	// ModeOff runs commands unconfined; only an explicit config sets it.
	ModeOff = "off"
)

// Config is the "sandbox" section of the managed policy.
type Config struct {
	// Mode is auto (default), bwrap, landlock or off.
	Mode string `json:"mode,omitempty"`
	// Network is "off" (default) or "on".
	Network string `json:"network,omitempty"`
	// NetworkAllow lists the hosts commands may reach with the network
	// off, through toolgate's HTTP proxy ("example.com", "*.example.com",
	// an address); bubblewrap mode only.
	NetworkAllow []string `json:"network_allow,omitempty"`
	// NetworkAllowAddresses are exact ip:port pairs that a session's
	// proxy may reach although they are loopback, private or link-local
	// addresses (a local package mirror, say); other such addresses stay
	// refused whatever the user approves. See docs/network.md.
	NetworkAllowAddresses []string `json:"network_allow_addresses,omitempty"`
	// Writable are further writable paths (a Go build cache, an npm
	// cache); "~/" means toolgate's home. Missing ones are created.
	Writable []string `json:"writable,omitempty"`
	// DenyRead are further paths masked like the credential places.
	DenyRead []string `json:"deny_read,omitempty"`
	// AllowWrite are protected paths (.git/hooks, .clineignore, shell
	// start-up files, see workspaceProtected) that commands may write
	// nonetheless: relative to the workspace, absolute, or "~/".
	AllowWrite []string `json:"allow_write,omitempty"`
	// MaxProcesses, MaxMemoryBytes and MaxCPUSeconds bound one run: its
	// process count, memory and CPU time (defaults 1024, 4 GiB, 600 s; a
	// negative value means no limit).
	MaxProcesses   int   `json:"max_processes,omitempty"`
	MaxMemoryBytes int64 `json:"max_memory_bytes,omitempty"`
	MaxCPUSeconds  int   `json:"max_cpu_seconds,omitempty"`
}

// Defaults of the limits.
const (
	defaultMaxProcesses   = 1024
	defaultMaxMemoryBytes = 4 << 30
	defaultMaxCPUSeconds  = 600
)

// Check lists every problem of the section.
func (c Config) Check() error {
	var errs []string
	switch c.Mode {
	case "", ModeAuto, ModeBwrap, ModeLandlock, ModeOff:
	default:
		errs = append(errs, fmt.Sprintf("sandbox.mode %q is not one of auto, bwrap, landlock, off", c.Mode))
	}
	switch c.Network {
	case "", "off", "on":
	default:
		errs = append(errs, fmt.Sprintf("sandbox.network %q is not \"off\" or \"on\"", c.Network))
	}
	if len(c.NetworkAllow) > 0 && c.NetworkOn() {
		errs = append(errs, `sandbox.network_allow applies with the network off: drop it or set sandbox.network to "off"`)
	}
	for _, h := range c.NetworkAllow {
		if h == "" || strings.ContainsAny(h, "/:@ ") || strings.Contains(strings.TrimPrefix(h, "*."), "*") {
			if net.ParseIP(h) == nil {
				errs = append(errs, fmt.Sprintf("sandbox.network_allow entry %q is not a host name, *.domain or an address", h))
			}
		}
	}
	for _, a := range c.NetworkAllowAddresses {
		if _, err := netip.ParseAddrPort(a); err != nil {
			errs = append(errs, fmt.Sprintf("sandbox.network_allow_addresses entry %q is not an ip:port pair", a))
		}
	}
	for _, p := range append(append([]string(nil), c.Writable...), c.DenyRead...) {
		if !filepath.IsAbs(p) && !strings.HasPrefix(p, "~/") {
			errs = append(errs, fmt.Sprintf("sandbox path %q must be absolute or start with ~/", p))
		}
	}
	for _, p := range c.AllowWrite {
		if p == "" || !filepath.IsAbs(p) && !strings.HasPrefix(p, "~/") && !filepath.IsLocal(p) {
			errs = append(errs, fmt.Sprintf("sandbox.allow_write entry %q must be a workspace path, absolute or start with ~/", p))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}

// NetworkOn reports whether commands may use the network.
func (c Config) NetworkOn() bool { return c.Network == "on" }

// limits are the effective limits, 0 meaning none.
func (c Config) limits() Limits {
	pick := func(v, def int64) int64 {
		switch {
		case v < 0:
			return 0
		case v == 0:
			return def
		}
		return v
	}
	return Limits{
		Processes:   int(pick(int64(c.MaxProcesses), defaultMaxProcesses)),
		MemoryBytes: pick(c.MaxMemoryBytes, defaultMaxMemoryBytes),
		CPUSeconds:  int(pick(int64(c.MaxCPUSeconds), defaultMaxCPUSeconds)),
	}
}

// Limits bound one run; 0 means no limit.
type Limits = helper.Limits

// expandHome turns "~/x" into an absolute path under home.
func expandHome(p, home string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok && home != "" {
		return filepath.Join(home, rest)
	}
	return filepath.Clean(p)
}

// credentialPlaces are the places under $HOME where tools keep secrets;
// they are masked in every sandbox.
var credentialPlaces = []string{
	".ssh", ".aws", ".config/gcloud", ".docker/config.json", ".netrc", ".git-credentials",
	".kube", ".npmrc", ".pypirc", ".gnupg", ".config/gh", ".azure",
}

// homeDir is toolgate's home, "" when unknown.
func homeDir() string {
	h, _ := os.UserHomeDir()
	return h
}
