package handlers

import (
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
)

// zoneSecret is what the loopback-only service answers; it must never
// reach a result.
const zoneSecret = "loopback-only-secret-7d1f"

// loopbackService is a service listening on addr (a loopback address)
// that counts the requests it sees.
func loopbackService(t *testing.T, addr string) (port string, hits *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("cannot listen on %s: %v", addr, err)
	}
	hits = new(atomic.Int64)
	s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte(zoneSecret))
	}))
	s.Listener = ln
	s.Start()
	t.Cleanup(s.Close)
	_, port, _ = net.SplitHostPort(ln.Addr().String())
	return port, hits
}

// TestWebFetchRefusesZonedLoopback is the attack of an IPv6 zone id: a
// zoned address is not inside any prefix, so "[::1%25lo]" once passed the
// loopback check. Every spelling is refused, written in the URL or
// reached through a redirect from an allowed address, and the service
// behind it sees no request.
func TestWebFetchRefusesZonedLoopback(t *testing.T) {
	port6, hits6 := loopbackService(t, "[::1]:0")
	port4, hits4 := loopbackService(t, "127.0.0.1:0")
	targets := []string{
		"http://[::1%25lo]:" + port6 + "/secret",
		"http://[::1%251]:" + port6 + "/secret",
		"http://[::1%25eth0]:" + port6 + "/secret",
		"http://[0:0:0:0:0:0:0:1%25lo]:" + port6 + "/secret",
		"http://[::ffff:127.0.0.1%25lo]:" + port4 + "/secret",
	}
	check := func(t *testing.T, got, code string) {
		t.Helper()
		if code != api.ToolCodeURLRefused {
			t.Errorf("got %s %q, want url_refused", code, got)
		}
		if strings.Contains(got, zoneSecret) {
			t.Errorf("the loopback service's answer reached the result: %q", got)
		}
	}
	t.Run("direct", func(t *testing.T) {
		f := webFixture(t, coordinator.WebFetchConfig{})
		for _, u := range targets {
			t.Run(u, func(t *testing.T) {
				got, code := f.fetch(t, u)
				check(t, got, code)
				if !strings.Contains(got, "loopback") {
					t.Errorf("the refusal does not say loopback: %q", got)
				}
			})
		}
	})
	t.Run("through an allowed redirect", func(t *testing.T) {
		for _, u := range targets {
			t.Run(u, func(t *testing.T) {
				hop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					http.Redirect(w, r, u, http.StatusFound)
				}))
				t.Cleanup(hop.Close)
				f := webFixture(t, coordinator.WebFetchConfig{AllowAddresses: []netip.AddrPort{netip.MustParseAddrPort(hop.Listener.Addr().String())}})
				got, code := f.fetch(t, hop.URL+"/go")
				check(t, got, code)
			})
		}
	})
	if n := hits6.Load() + hits4.Load(); n != 0 {
		t.Errorf("the loopback-only service saw %d requests, want 0", n)
	}
}
