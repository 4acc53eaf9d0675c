package sandbox

import (
	"net"
	"net/http"
	"strconv"
	"testing"
)

// TestNetworkAllowListThroughTheProxy runs curl in bubblewrap mode with the
// network off and sandbox.network_allow naming localhost: plain HTTP and a
// CONNECT tunnel to localhost pass through toolgate's proxy; the same
// server by another name (127.0.0.1) is refused by the proxy; and curl told
// to bypass the proxy has no route at all. Without network_allow nothing
// gets through (the control).
func TestNetworkAllowListThroughTheProxy(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("hello from outside")) })}
	go srv.Serve(ln)
	defer srv.Close()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	curl := "curl -sS --max-time 10 "
	cases := []struct {
		name, script string
		reached      bool
	}{
		{"allowed host", curl + "http://localhost:" + port + "/", true},
		{"allowed host through a CONNECT tunnel", curl + "--proxytunnel http://localhost:" + port + "/", true},
		{"host not listed", curl + "http://127.0.0.1:" + port + "/", false},
		{"host not listed, tunnel", curl + "--proxytunnel http://127.0.0.1:" + port + "/", false},
		{"proxy bypassed", curl + "--noproxy '*' http://localhost:" + port + "/", false},
	}
	for _, allow := range [][]string{{"localhost"}, nil} {
		for _, mode := range []string{ModeBwrap, modeWarm} {
			s := newTest(t, Config{Mode: mode, NetworkAllow: allow}, "")
			if s.Mode() != InForceBwrap {
				t.Skip("network_allow needs bubblewrap")
			}
			for _, tc := range cases {
				t.Run(mode+"/"+tc.name+"/allow="+strconv.Itoa(len(allow)), func(t *testing.T) {
					o := runIn(t, s, Run{Workspace: t.TempDir()}, tc.script)
					want := tc.reached && allow != nil
					if got := contains(o.out, "hello from outside"); got != want {
						t.Errorf("reached the server = %v, want %v\n%s", got, want, o.out)
					}
					if allow != nil && !tc.reached && tc.name != "proxy bypassed" && !contains(o.out, "403") && !contains(o.out, "network_allow") {
						t.Errorf("the refusal does not say why:\n%s", o.out)
					}
				})
			}
		}
	}
}
