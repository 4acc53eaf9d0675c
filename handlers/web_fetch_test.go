package handlers

import (
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
)

// webFixture is a workspace whose coordinator runs web_fetch with cfg.
func webFixture(t *testing.T, cfg coordinator.WebFetchConfig) *fixture {
	t.Helper()
	return newFixtureConfig(t, nil, func(c *coordinator.Config) { c.WebFetch = cfg })
}

// fetch calls web_fetch and returns the result text and the error code
// ("" on success).
func (f *fixture) fetch(t *testing.T, u string) (string, string) {
	t.Helper()
	res, rec := f.call(t, "web_fetch", WebFetchInput{URL: u, Prompt: "find the title"})
	code := ""
	if rec.Error != nil {
		code = rec.Error.Code
	}
	if res.IsError != (code != "") {
		t.Fatalf("is_error %v but code %q", res.IsError, code)
	}
	return text(res), code
}

const samplePage = `<!doctype html><html><head><title>t</title><style>p{color:red}</style>
<script>console.log("must not appear")</script></head><body>
<h1>Release notes</h1><p>See <a href="/docs/intro">the intro</a>.</p>
<table><tr><th>Version</th><th>Date</th></tr><tr><td>1.2</td><td>May</td></tr></table>
</body></html>`

// site serves the test pages; its handler may be replaced per test.
func site(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(samplePage))
	})
	mux.HandleFunc("/plain", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("just text\n"))
	})
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/page", http.StatusFound) })
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte(strings.Repeat("x", 2048)))
	})
	mux.HandleFunc("/missing", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no such page", http.StatusNotFound) })
	mux.HandleFunc("/image", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG\r\n\x1a\n"))
	})
	hang := make(chan struct{})
	mux.HandleFunc("/hang", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-hang:
		case <-r.Context().Done():
		}
	})
	s := httptest.NewServer(mux)
	t.Cleanup(func() { close(hang); s.Close() })
	return s
}

// TestWebFetch runs against a local server with allow_private on (the
// server is on 127.0.0.1). Cline's WebFetchToolHandler.ts takes url and
// prompt; toolgate fetches itself and returns markdown.
func TestWebFetch(t *testing.T) {
	s := site(t)
	f := webFixture(t, coordinator.WebFetchConfig{AllowPrivate: true, MaxBytes: 1024, Timeout: coordinator.Duration(500e6)})

	t.Run("html becomes markdown", func(t *testing.T) {
		got, code := f.fetch(t, s.URL+"/page")
		if code != "" {
			t.Fatalf("failed: %s %s", code, got)
		}
		for _, want := range []string{"URL: " + s.URL + "/page", "Prompt: find the title", "# Release notes",
			"[the intro](" + s.URL + "/docs/intro)", "| Version | Date |", "| 1.2     | May  |"} {
			if !strings.Contains(got, want) {
				t.Errorf("result lacks %q:\n%s", want, got)
			}
		}
		if strings.Contains(got, "must not appear") || strings.Contains(got, "color:red") {
			t.Errorf("scripts or styles leaked into the markdown:\n%s", got)
		}
	})
	t.Run("plain text passes", func(t *testing.T) {
		if got, code := f.fetch(t, s.URL+"/plain"); code != "" || !strings.HasSuffix(got, "\njust text\n") {
			t.Errorf("got %s %q", code, got)
		}
	})
	t.Run("redirect followed", func(t *testing.T) {
		got, code := f.fetch(t, s.URL+"/moved")
		if code != "" || !strings.Contains(got, "URL: "+s.URL+"/page\n(redirected from "+s.URL+"/moved)") {
			t.Errorf("got %s %q", code, got)
		}
	})
	t.Run("over the size cap", func(t *testing.T) {
		if got, code := f.fetch(t, s.URL+"/big"); code != api.ToolCodeTooLarge || !strings.Contains(got, "larger than 1024 bytes") {
			t.Errorf("got %s %q, want too_large", code, got)
		}
	})
	t.Run("over the time cap", func(t *testing.T) {
		if got, code := f.fetch(t, s.URL+"/hang"); code != api.ToolCodeTimeout || !strings.Contains(got, "longer than 500ms") {
			t.Errorf("got %s %q, want timeout", code, got)
		}
	})
	t.Run("error status", func(t *testing.T) {
		if got, code := f.fetch(t, s.URL+"/missing"); code != api.ToolCodeFetchFailed || !strings.Contains(got, "404 Not Found") || !strings.Contains(got, "no such page") {
			t.Errorf("got %s %q, want fetch_failed with the status", code, got)
		}
	})
	t.Run("binary refused", func(t *testing.T) {
		if got, code := f.fetch(t, s.URL+"/image"); code != api.ToolCodeBinaryFile || !strings.Contains(got, "image/png") {
			t.Errorf("got %s %q, want binary_file", code, got)
		}
	})
	t.Run("not http", func(t *testing.T) {
		for _, u := range []string{"file:///etc/passwd", "ftp://example.com/x", "gopher://example.com/"} {
			if got, code := f.fetch(t, u); code != api.ToolCodeURLRefused || !strings.Contains(got, "only http and https") {
				t.Errorf("%s: got %s %q, want url_refused", u, code, got)
			}
		}
	})
}

// TestWebFetchRefusesPrivate: with allow_private off (the default) every
// refused address class is refused, written literally, behind a name that
// resolves to it, or at the end of a redirect.
func TestWebFetchRefusesPrivate(t *testing.T) {
	s := site(t)
	port := s.Listener.Addr().(*net.TCPAddr).Port
	refused := func(t *testing.T, f *fixture, u, class string) {
		t.Helper()
		got, code := f.fetch(t, u)
		if code != api.ToolCodeURLRefused || !strings.Contains(got, "is a "+class+" address") {
			t.Errorf("%s: got %s %q, want url_refused as %s", u, code, got, class)
		}
	}
	f := webFixture(t, coordinator.WebFetchConfig{})
	t.Run("loopback", func(t *testing.T) {
		refused(t, f, s.URL+"/page", "loopback")
		refused(t, f, "http://[::1]:"+itoa(port)+"/page", "loopback")
		refused(t, f, "http://2130706433:"+itoa(port)+"/page", "loopback")
	})
	t.Run("loopback behind a name, checked after DNS", func(t *testing.T) {
		refused(t, f, "http://localhost:"+itoa(port)+"/page", "loopback")
	})
	t.Run("private", func(t *testing.T) {
		for _, h := range []string{"10.0.0.1", "172.16.5.4", "192.168.1.1", "[fd00::1]", "[fc00::5]"} {
			refused(t, f, "http://"+h+"/", "private")
		}
	})
	t.Run("link-local", func(t *testing.T) {
		refused(t, f, "http://169.254.169.254/latest/meta-data/", "link-local")
		refused(t, f, "http://[fe80::1]/", "link-local")
	})
	t.Run("unspecified", func(t *testing.T) {
		refused(t, f, "http://0.0.0.0:"+itoa(port)+"/page", "unspecified")
		refused(t, f, "http://[::]:"+itoa(port)+"/page", "unspecified")
	})
	t.Run("redirect from an allowed host to 127.0.0.1", func(t *testing.T) {
		// The first server is reachable as an exact allowed address; the
		// page it redirects to is on another port of 127.0.0.1.
		target := site(t)
		hop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, target.URL+"/page", http.StatusFound)
		}))
		t.Cleanup(hop.Close)
		hopAddr := netip.MustParseAddrPort(hop.Listener.Addr().String())
		g := webFixture(t, coordinator.WebFetchConfig{AllowAddresses: []netip.AddrPort{hopAddr}})
		got, code := g.fetch(t, hop.URL+"/go")
		if code != api.ToolCodeURLRefused || !strings.Contains(got, "redirected to "+target.URL+"/page") || !strings.Contains(got, "loopback") {
			t.Errorf("got %s %q, want url_refused naming the redirect", code, got)
		}
		// A redirect to a name that resolves to loopback is caught when
		// it is dialled.
		u, _ := url.Parse(target.URL)
		named := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "http://localhost:"+u.Port()+"/page", http.StatusFound)
		}))
		t.Cleanup(named.Close)
		g = webFixture(t, coordinator.WebFetchConfig{AllowAddresses: []netip.AddrPort{netip.MustParseAddrPort(named.Listener.Addr().String())}})
		if got, code := g.fetch(t, named.URL+"/go"); code != api.ToolCodeURLRefused || !strings.Contains(got, "loopback") {
			t.Errorf("redirect to localhost: got %s %q, want url_refused", code, got)
		}
		// An allowed address itself is fetched.
		g = webFixture(t, coordinator.WebFetchConfig{AllowAddresses: []netip.AddrPort{netip.MustParseAddrPort(target.Listener.Addr().String())}})
		if got, code := g.fetch(t, target.URL+"/page"); code != "" || !strings.Contains(got, "# Release notes") {
			t.Errorf("allowed address: got %s %q, want the page", code, got)
		}
	})
}

// TestWebFetchRedirectToDeniedHost: a redirect is judged by the deny
// rules too, though only the first URL was shown to the policy.
func TestWebFetchRedirectToDeniedHost(t *testing.T) {
	s := site(t)
	port := s.Listener.Addr().(*net.TCPAddr).Port
	hop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://localhost:"+itoa(port)+"/page", http.StatusFound)
	}))
	t.Cleanup(hop.Close)
	f := newFixtureConfig(t, nil, func(c *coordinator.Config) {
		c.WebFetch.AllowPrivate = true
		c.Permissions.Deny = []string{"web_fetch(domain:localhost)"}
	})
	got, code := f.fetch(t, hop.URL+"/go")
	if code != api.ToolCodeURLRefused || !strings.Contains(got, `deny rule "web_fetch(domain:localhost)"`) {
		t.Errorf("got %s %q, want url_refused naming the deny rule", code, got)
	}
	if got, code := f.fetch(t, s.URL+"/page"); code != "" {
		t.Errorf("the same page at 127.0.0.1: %s %q, want it fetched", code, got)
	}
}
