package server

import (
	"log/slog"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/dialect"
	"github.com/toolgate/toolgate/handlers"
	"github.com/toolgate/toolgate/internal/mcphub"
)

// fixture is a real server for tests: a coordinator over a temporary
// workspace behind the whole HTTP surface, every request and response
// checked against openapi.yaml. Cleanup closes it all and reports what
// did not conform.
type fixture struct {
	ts    *httptest.Server
	url   string
	port  int
	dir   string // the workspace; "" without one
	coord *coordinator.Coordinator
	reg   *prometheus.Registry
}

// fixtureOptions describe a fixture; the zero value is the default tools
// over an empty workspace, with the coordinator's zero config.
type fixtureOptions struct {
	files       map[string]string // workspace files to create, by slash path
	noWorkspace bool
	config      coordinator.Config
	tools       []tool.Registration // nil: handlers.Default()
	mcp         *mcphub.Hub
	tracing     trace.TracerProvider // nil: tracing off
	logger      *slog.Logger         // nil: discarded
	server      Config               // the server's config; Token must be set
	// before adjusts both configs once the listener's address is known.
	before func(url string, port int, c *coordinator.Config, s *Config)
}

func newFixture(tb testing.TB, o fixtureOptions) *fixture {
	tb.Helper()
	f := &fixture{reg: prometheus.NewRegistry()}
	var ws *tool.Workspace
	if !o.noWorkspace {
		dir := tb.TempDir()
		for name, body := range o.files {
			p := filepath.Join(dir, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				tb.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				tb.Fatal(err)
			}
		}
		var err error
		if ws, err = tool.OpenWorkspace(dir); err != nil {
			tb.Fatal(err)
		}
		f.dir = ws.Dir
	}
	f.ts = httptest.NewUnstartedServer(nil)
	f.port = f.ts.Listener.Addr().(*net.TCPAddr).Port
	f.url = "http://" + f.ts.Listener.Addr().String()
	if o.before != nil {
		o.before(f.url, f.port, &o.config, &o.server)
	}
	var dialects []tool.Dialect
	if o.tools == nil {
		o.tools, dialects = handlers.Default(), dialect.All()
	}
	if o.logger == nil {
		o.logger = discardLogger()
	}
	f.coord = coordinator.New(coordinator.Options{Config: o.config, Workspace: ws, Tools: o.tools, Dialects: dialects,
		Logger: o.logger, Registerer: f.reg, MCP: o.mcp, Tracing: o.tracing})
	o.server.Tracing = o.tracing != nil
	_, router := loadSpec(tb)
	check := &conformance{router: router, next: New(o.logger, f.coord, f.reg, o.server)}
	f.ts.Config.Handler = check
	f.ts.Start()
	// Every request of the server's client has a deadline: a server that
	// never answers fails the test in a minute instead of hanging the suite.
	f.ts.Client().Timeout = 60 * time.Second
	tb.Cleanup(func() {
		// The coordinator first: it cancels calls still waiting (for an
		// approval, say), whose requests the server's Close waits for.
		f.coord.Close()
		f.ts.Close()
		if ws != nil {
			_ = ws.Close()
		}
		for _, e := range check.errs {
			tb.Errorf("openapi.yaml conformance: %s", e)
		}
	})
	return f
}
