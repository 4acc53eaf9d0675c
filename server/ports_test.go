package server

import (
	"net/http"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/internal/sandbox"
)

// TestPortsWithoutSessionNetworks: where sessions get no network of their
// own (the sandbox off, the network on), the ports list is a conflict
// that says why, not an empty list pretending isolation; and a preview
// finds nothing to proxy.
func TestPortsWithoutSessionNetworks(t *testing.T) {
	for _, tc := range []struct {
		name string
		sb   sandbox.Config
		why  string
	}{
		{"sandbox off", sandbox.Config{Mode: sandbox.ModeOff}, "the sandbox is off"},
		{"network on", sandbox.Config{Network: "on"}, "sandbox.network is on"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := coordinator.DefaultConfig()
			cfg.AllowAll = true
			cfg.Sandbox = tc.sb
			f := newFixture(t, fixtureOptions{config: cfg, server: Config{Token: testToken}})
			s := &execServer{url: f.url, dir: f.dir, coord: f.coord}
			if mode := f.coord.SandboxInfo().Mode; mode == sandbox.InForceUnavailable {
				t.Skip("no sandbox here")
			}
			sid := s.session(t)
			if text, isErr := s.run(t, sid, "c1", "true"); isErr {
				t.Fatalf("command: %s", text)
			}
			resp := s.request(t, t.Context(), "GET", "/v1/sessions/"+sid+"/ports", nil, "")
			e := decodeJSON[api.ErrorResponse](t, resp, http.StatusConflict)
			if !strings.Contains(e.Error.Message, tc.why) {
				t.Errorf("message %q, want it to say %q", e.Error.Message, tc.why)
			}
			get := s.request(t, t.Context(), "GET", "/v1/sessions/"+sid+"/ports/8000/", nil, "")
			get.Body.Close()
			if get.StatusCode != http.StatusNotFound {
				t.Errorf("preview: %d, want 404", get.StatusCode)
			}
		})
	}
}
