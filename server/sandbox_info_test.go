package server

import (
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
)

// TestSandboxModeReported: /healthz and /metrics say which sandbox is in
// force, and a command's approval preview says what it allows.
func TestSandboxModeReported(t *testing.T) {
	for _, mode := range []string{"", "off", "landlock"} {
		t.Run("config mode "+mode, func(t *testing.T) {
			cfg := coordinator.DefaultConfig()
			cfg.Sandbox.Mode = mode
			f := newFixture(t, fixtureOptions{config: cfg, server: Config{Token: flowToken}})
			want := f.coord.SandboxInfo().Mode
			if mode == "landlock" && want != "landlock" {
				t.Skipf("Landlock is not available here (%s)", f.coord.SandboxInfo().Reason)
			}
			if mode == "off" && want != "off" || mode == "" && want != "bwrap" && want != "landlock" {
				t.Fatalf("mode in force = %q for config mode %q", want, mode)
			}
			var health struct {
				Sandbox struct {
					Mode         string   `json:"mode"`
					PIDNamespace bool     `json:"pid_namespace"`
					Caveats      []string `json:"caveats"`
				} `json:"sandbox"`
			}
			fs := &flowServer{url: f.url, dir: f.dir}
			if code := fs.call(t, http.MethodGet, "/healthz", nil, &health); code != http.StatusOK || health.Sandbox.Mode != want {
				t.Errorf("healthz: %d, sandbox mode %q, want %q", code, health.Sandbox.Mode, want)
			}
			// Landlock-only mode says plainly that it has no PID namespace.
			noPIDNS := slices.ContainsFunc(health.Sandbox.Caveats, func(c string) bool { return strings.Contains(c, "no PID namespace") })
			if health.Sandbox.PIDNamespace != (want == "bwrap") || noPIDNS != (want == "landlock") {
				t.Errorf("healthz sandbox = %+v, want pid_namespace only for bwrap and the caveat only for landlock", health.Sandbox)
			}
			resp, err := http.Get(f.url + "/metrics")
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if !strings.Contains(string(body), `toolgate_sandbox_info{mode="`+want+`"} 1`) {
				t.Errorf("metrics lack toolgate_sandbox_info for %s", want)
			}
			sid := fs.session(t, api.Permissions{})
			ev := next(t, fs.sseMessage(t, sid, realCmdUse("c1", "rm -rf build")), api.EventToolAwaitingApproval)
			p := ev.Approval.Preview.Sandbox
			if p == nil || p.Mode != want || p.Summary == "" {
				t.Fatalf("preview sandbox = %+v", p)
			}
			if mode == "" && (p.Network != "off" || len(p.Writable) == 0 || !strings.Contains(p.Summary, "no network")) {
				t.Errorf("preview sandbox = %+v", p)
			}
			fs.decide(t, sid, "c1", api.DecisionRequest{Decision: "reject"})
		})
	}
}
