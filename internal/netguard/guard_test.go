package netguard

import (
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"sync/atomic"
	"testing"
	"time"
)

func TestClass(t *testing.T) {
	for _, tc := range []struct{ ip, want string }{
		{"127.0.0.1", "loopback"}, {"127.255.0.9", "loopback"}, {"::1", "loopback"}, {"::ffff:127.0.0.1", "loopback"},
		{"10.1.2.3", "private"}, {"172.16.0.1", "private"}, {"172.31.255.255", "private"}, {"192.168.1.1", "private"},
		{"fc00::1", "private"}, {"fd12:3456::1", "private"}, {"::ffff:10.0.0.1", "private"},
		{"169.254.169.254", "link-local"}, {"fe80::1", "link-local"},
		{"0.0.0.0", "unspecified"}, {"::", "unspecified"},
		{"::1%lo", "loopback"}, {"::1%1", "loopback"}, {"::1%eth0", "loopback"}, {"::ffff:127.0.0.1%lo", "loopback"},
		{"fe80::1%eth0", "link-local"}, {"fd00::2%eth0", "private"}, {"::%lo", "unspecified"},
		{"8.8.8.8", ""}, {"172.32.0.1", ""}, {"2606:4700::1111", ""}, {"93.184.216.34", ""},
	} {
		if got := Class(netip.MustParseAddr(tc.ip)); got != tc.want {
			t.Errorf("Class(%s) = %q, want %q", tc.ip, got, tc.want)
		}
	}
}

func TestCheckURL(t *testing.T) {
	g := Guard{AllowAddresses: []netip.AddrPort{netip.MustParseAddrPort("127.0.0.1:8080"), netip.MustParseAddrPort("[::1]:8090")}}
	for _, tc := range []struct{ url, class string }{
		{"https://example.com/", ""},
		{"http://127.0.0.1/", "loopback"},
		{"http://127.0.0.1:8080/", ""}, // exempt: exactly this ip:port
		{"http://127.0.0.1:8081/", "loopback"},
		{"http://[::1]:8080/", "loopback"},
		{"http://2130706433/", "loopback"}, // 127.0.0.1 as one number
		{"http://0x7f.1/", "loopback"},
		{"http://127.1/", "loopback"},
		{"http://017700000001/", "loopback"},
		{"http://[::ffff:127.0.0.1]/", "loopback"},
		{"http://[::1%25lo]:8090/", ""}, // the exempt ip:port, however zoned
		{"http://[::1%25lo]:8091/", "loopback"},
		{"http://[::1%251]/", "loopback"},
		{"http://[::1%25eth0]/", "loopback"},
		{"http://[fe80::1%25eth0]/", "link-local"},
		{"http://10.0.0.1/", "private"},
		{"http://169.254.169.254/latest/meta-data/", "link-local"},
		{"http://0.0.0.0:80/", "unspecified"},
		{"http://[::]/", "unspecified"},
		{"file:///etc/passwd", "scheme"},
		{"ftp://example.com/", "scheme"},
		{"http:///nohost", "scheme"},
		{"http://user:pw@example.com/", "scheme"},
	} {
		u, err := url.Parse(tc.url)
		if err != nil {
			t.Fatal(err)
		}
		err = g.CheckURL(u)
		r, refused := Refused(err)
		switch {
		case tc.class == "" && err != nil:
			t.Errorf("%s: refused (%v), want allowed", tc.url, err)
		case tc.class != "" && (!refused || r.Class != tc.class):
			t.Errorf("%s: got %v, want refused as %s", tc.url, err, tc.class)
		}
	}
	if err := (Guard{AllowPrivate: true}).CheckURL(&url.URL{Scheme: "http", Host: "127.0.0.1"}); err != nil {
		t.Errorf("allow_private: %v", err)
	}
}

// TestControl: the dialer's check sees the address after DNS.
func TestControl(t *testing.T) {
	g := Guard{}
	for addr, refused := range map[string]bool{"127.0.0.1:80": true, "[::1]:443": true, "[fd00::1]:80": true, "93.184.216.34:443": false,
		"[::1%lo]:443": true, "[::1%1]:443": true, "[::1%eth0]:443": true, "[fe80::1%eth0]:80": true, "[2606:4700::1111%eth0]:443": false} {
		if err := g.Control("tcp", addr, nil); (err != nil) != refused {
			t.Errorf("Control(%s) = %v, want refused=%v", addr, err, refused)
		}
	}
}

// TestClientDialerRefusesZones: the dialer's check holds on its own, for
// a URL that no CheckURL saw first. A loopback service is asked for
// through zoned spellings of ::1 and sees no request.
func TestClientDialerRefusesZones(t *testing.T) {
	ln, err := net.Listen("tcp", "[::1]:0")
	if err != nil {
		t.Skipf("no IPv6 loopback: %v", err)
	}
	var hits atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write([]byte("secret"))
	}))
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	client := Guard{}.Client(5 * time.Second)
	for _, zone := range []string{"lo", "1", "eth0"} {
		u := "http://[::1%25" + zone + "]:" + port + "/"
		resp, err := client.Get(u)
		if err == nil {
			resp.Body.Close()
			t.Errorf("%s: fetched (%s), want refused by the dialer", u, resp.Status)
			continue
		}
		if r, ok := Refused(err); !ok || r.Class != "loopback" {
			t.Errorf("%s: %v, want refused as loopback", u, err)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the loopback service saw %d requests, want 0", n)
	}
}
