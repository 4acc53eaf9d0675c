package netguard

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
)

// Guard is the address policy of one tool call.
type Guard struct {
	// AllowPrivate lets requests reach loopback, private, link-local and
	// unspecified addresses.
	AllowPrivate bool
	// AllowAddresses are exact ip:port pairs reachable even when private
	// addresses are not (a local development server, say).
	AllowAddresses []netip.AddrPort
	// Rules, if set, is asked about every URL after the address checks
	// (the permission rules' deny list for the host, say).
	Rules func(u *url.URL) error
	// Allowing says, in a refusal of a private address, what setting
	// would allow it; "" names web_fetch's.
	Allowing string
}

// RefusedError says why an address may not be reached.
type RefusedError struct {
	What  string // the URL or address refused
	Class string // loopback, private, link-local, unspecified, ... or "scheme"
	Why   string
}

func (e *RefusedError) Error() string { return e.Why }

// classes are the refused address ranges, each with its name. IPv4-mapped
// IPv6 addresses are unmapped before they are compared.
var classes = []struct {
	name     string
	prefixes []netip.Prefix
}{
	{"loopback", prefixes("127.0.0.0/8", "::1/128")},
	{"private", prefixes("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7")},
	{"link-local", prefixes("169.254.0.0/16", "fe80::/10")},
	{"unspecified", prefixes("0.0.0.0/8", "::/128")},
	{"carrier-grade NAT", prefixes("100.64.0.0/10")},
	{"multicast", prefixes("224.0.0.0/4", "ff00::/8")},
	{"broadcast", prefixes("255.255.255.255/32")},
}

// bare is ip without its IPv6 zone and IPv4 mapping: the address a
// connection reaches, whatever spelling named it.
func bare(ip netip.Addr) netip.Addr {
	return ip.WithZone("").Unmap()
}

func prefixes(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}

// Class names the refused range an address falls in, or "". The zone of
// an IPv6 address ("::1%lo") is dropped first: no prefix contains a zoned
// address, so a zone would otherwise hide any address from every range.
func Class(ip netip.Addr) string {
	ip = bare(ip)
	for _, c := range classes {
		for _, p := range c.prefixes {
			if p.Contains(ip) {
				return c.name
			}
		}
	}
	return ""
}

// CheckURL refuses a URL that is not http or https, has no host, carries
// credentials, or names a refused address literally. Names are checked
// again when they are dialled (CheckAddr).
func (g Guard) CheckURL(u *url.URL) error {
	if u.Scheme != "http" && u.Scheme != "https" {
		return &RefusedError{What: u.String(), Class: "scheme", Why: fmt.Sprintf("only http and https URLs can be fetched, not %q", u.Scheme+":")}
	}
	if u.Hostname() == "" {
		return &RefusedError{What: u.String(), Class: "scheme", Why: "the URL names no host"}
	}
	if u.User != nil {
		return &RefusedError{What: u.Redacted(), Class: "scheme", Why: "URLs with a user name or password are refused"}
	}
	if g.Rules != nil {
		if err := g.Rules(u); err != nil {
			return &RefusedError{What: u.Redacted(), Class: "rule", Why: err.Error()}
		}
	}
	host := strings.TrimSuffix(u.Hostname(), ".")
	ip, err := netip.ParseAddr(host)
	if err != nil {
		ip, err = parseLegacyIPv4(host)
		if err != nil {
			return nil
		}
	}
	return g.CheckAddr(netip.AddrPortFrom(ip, portOf(u)))
}

// parseLegacyIPv4 reads the forms inet_aton accepts and browsers still
// resolve without DNS ("2130706433", "0x7f.1", "127.1"), so they cannot
// slip a private address past the literal check.
func parseLegacyIPv4(host string) (netip.Addr, error) {
	if host == "" || strings.Trim(host, "0123456789abcdefxABCDEFX.") != "" || strings.Count(host, ".") > 3 {
		return netip.Addr{}, fmt.Errorf("not an address")
	}
	parts := strings.Split(host, ".")
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		var v uint64
		var err error
		switch {
		case strings.HasPrefix(strings.ToLower(p), "0x"):
			_, err = fmt.Sscanf(p[2:], "%x", &v)
		case len(p) > 1 && p[0] == '0':
			_, err = fmt.Sscanf(p[1:], "%o", &v)
		default:
			_, err = fmt.Sscanf(p, "%d", &v)
		}
		if err != nil {
			return netip.Addr{}, err
		}
		vals[i] = v
	}
	var n uint64
	last := len(vals) - 1
	for i := 0; i < last; i++ {
		if vals[i] > 255 {
			return netip.Addr{}, fmt.Errorf("not an address")
		}
		n |= vals[i] << (24 - 8*i)
	}
	if vals[last] >= 1<<(32-8*last) {
		return netip.Addr{}, fmt.Errorf("not an address")
	}
	n |= vals[last]
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}), nil
}

func portOf(u *url.URL) uint16 {
	if p := u.Port(); p != "" {
		var n uint16
		fmt.Sscanf(p, "%d", &n)
		return n
	}
	if u.Scheme == "https" {
		return 443
	}
	return 80
}

// CheckAddr refuses an address in a refused range, unless private
// addresses are allowed or this exact ip:port is.
func (g Guard) CheckAddr(ap netip.AddrPort) error {
	if g.AllowPrivate {
		return nil
	}
	class := Class(ap.Addr())
	if class == "" {
		return nil
	}
	for _, a := range g.AllowAddresses {
		if bare(a.Addr()) == bare(ap.Addr()) && a.Port() == ap.Port() {
			return nil
		}
	}
	allowing := g.Allowing
	if allowing == "" {
		allowing = "the managed policy sets web_fetch.allow_private (or lists it in web_fetch.allow_addresses)"
	}
	return &RefusedError{What: ap.String(), Class: class, Why: fmt.Sprintf(
		"%s is a %s address; fetching it is refused unless %s", bare(ap.Addr()), class, allowing)}
}

// Control is a net.Dialer Control function: it runs after DNS, on the
// address about to be connected, so no resolution trick reaches a refused
// address.
func (g Guard) Control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		host, _, splitErr := net.SplitHostPort(address)
		if splitErr != nil {
			return fmt.Errorf("netguard: cannot read dial address %q", address)
		}
		return fmt.Errorf("netguard: dial address %q is not an IP address", host)
	}
	return g.CheckAddr(ap)
}
