package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/dialect"
	"github.com/toolgate/toolgate/handlers"
	"github.com/toolgate/toolgate/internal/nowait"
	"github.com/toolgate/toolgate/internal/process"
	"github.com/toolgate/toolgate/internal/procs"
	"github.com/toolgate/toolgate/internal/randid"
	"github.com/toolgate/toolgate/internal/sandbox"
	"github.com/toolgate/toolgate/internal/telemetry"
	"github.com/toolgate/toolgate/server"
	"go.opentelemetry.io/otel/trace"
)

const usage = `toolgate executes AI coding agents' tool calls over HTTP.

Usage:
  toolgate serve [flags]    serve the workspace (default: the current directory)
  toolgate audit export [flags]
                            write the audit log (every call) to stdout as JSON lines
  toolgate token new NAME SCOPES [--file F]
                            make a named token with scopes (call, approve, admin,
                            metrics): the token on stdout, its hashed line in F
  toolgate version

Flags of serve:
`

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// run is the whole program: flags, configuration, logger, server and
// shutdown. Tests call it directly with their own arguments and streams.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) < 2 || args[1] == "-h" || args[1] == "--help" || args[1] == "help" {
		fmt.Fprint(stdout, usage)
		fs, _ := serveFlags(stdout)
		fs.PrintDefaults()
		return nil
	}
	switch args[1] {
	case "serve":
		return serve(ctx, args[2:], getenv, stdin, stdout, stderr)
	case "audit":
		return audit(ctx, args[2:], getenv, stdout, stderr)
	case "token":
		return tokenCommand(args[2:], stdout, stderr)
	case "version":
		fmt.Fprintln(stdout, "toolgate", version)
		return nil
	}
	return fmt.Errorf("unknown command %q (try: toolgate serve)", args[1])
}

// serveOptions are serve's flags.
type serveOptions struct {
	addr      string
	workspace string
	config    string
	logFormat string
	logLevel  string
	store     string
	tokenFile string
	// shutdownGrace bounds how long a stop waits for running calls.
	shutdownGrace time.Duration
}

func serveFlags(out io.Writer) (*flag.FlagSet, *serveOptions) {
	o := &serveOptions{}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.StringVar(&o.addr, "addr", "127.0.0.1:7420", "address to listen on")
	fs.StringVar(&o.workspace, "workspace", ".", "the directory tool calls work in")
	fs.StringVar(&o.config, "config", "", "JSON configuration file (policy, hosts, limits)")
	fs.StringVar(&o.logFormat, "log-format", "auto", "log format: auto (text on a terminal, else JSON), text or json")
	fs.StringVar(&o.logLevel, "log-level", "info", "log level: debug, info, warn or error")
	fs.StringVar(&o.store, "store", "", `where sessions and the audit log live: "sqlite" or "memory" (default: the config's store.mode, else sqlite)`)
	fs.StringVar(&o.tokenFile, "token-file", "", `read the bearer token from this file ("-": a line of stdin) instead of TOOLGATE_TOKEN`)
	fs.DurationVar(&o.shutdownGrace, "shutdown-grace", 30*time.Second, "on SIGTERM or SIGINT, how long running calls may take to finish")
	return fs, o
}

func serve(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs, o := serveFlags(stderr)
	if err := fs.Parse(args); err != nil {
		return err
	}
	defer keepHeapFloor(getenv)()
	if governProcs {
		defer procs.Start(getenv)()
	}
	cfg, err := loadConfig(o.config)
	if err != nil {
		return err
	}
	logger, flushLog, err := newLogger(stderr, o.logFormat, o.logLevel)
	if err != nil {
		return err
	}
	defer flushLog()
	for _, w := range cfg.Warnings {
		logger.Warn(w, "config", o.config)
	}
	ws, err := tool.OpenWorkspace(o.workspace)
	if err != nil {
		return err
	}
	defer ws.Close()
	defer sweepTemps(ctx, ws, logger)()
	closeSpills, err := openSpills(&cfg.Coordinator.Commands, logger)
	if err != nil {
		return err
	}
	defer closeSpills()
	sweepNetworkDirs(logger)
	if o.store != "" {
		cfg.Store.Mode = o.store
		if err := cfg.Store.check(); err != nil {
			return err
		}
	}
	st, closeStore, err := openStore(ctx, cfg.Store, ws.Dir, getenv, logger)
	if err != nil {
		return err
	}
	defer closeStore()
	cfg.Coordinator.StateFiles = append(cfg.Coordinator.StateFiles, stateDirs(getenv)...)
	if cfg.Store.Mode == storeSQLite {
		// A write to the state database (when it lives in the workspace)
		// must never pass silently.
		if p, err := statePath(cfg.Store, ws.Dir, getenv); err == nil {
			cfg.Coordinator.ProtectedFiles = append(cfg.Coordinator.ProtectedFiles, databaseFiles(p, stateDirs(getenv))...)
		}
	}

	token, tokenFile, err := serverToken(o.tokenFile, getenv, stdin)
	if err != nil {
		return err
	}
	if tokenFile != "" {
		cfg.Coordinator.StateFiles = append(cfg.Coordinator.StateFiles, tokenFile)
	}
	if token == "" {
		token = randomToken()
		fmt.Fprintf(stdout, "toolgate token: %s\n", token)
	}
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return err
	}
	port := ln.Addr().(*net.TCPAddr).Port

	hub, err := loadMCP(&cfg.Coordinator, logger)
	if err != nil {
		return err
	}
	defer hub.Close()
	if cfg.Coordinator.Subagents.ToolgateURL == "" {
		// Subagent runners call back on this machine.
		cfg.Coordinator.Subagents.ToolgateURL = selfURL(ln.Addr())
	}
	tracing, err := telemetry.Setup(ctx, cfg.Telemetry, getenv, version)
	if err != nil {
		return err
	}
	defer func() {
		flushCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = tracing.Shutdown(flushCtx)
	}()
	var tp trace.TracerProvider
	if tracing.Enabled {
		tp = tracing.Provider
		logger.Info("tracing", "exporter", "otlp")
	}
	reg := prometheus.NewRegistry()
	coord := coordinator.New(coordinator.Options{
		Config: cfg.Coordinator, Workspace: ws, Tools: handlers.Default(),
		Dialects: dialect.All(), Logger: logger, Registerer: reg, MCP: hub,
		Store: st, Undo: handlers.RestoreUndo, Tracing: tp,
	})
	// The config's rules were checked for syntax when it was read; the
	// tool names they use can only be checked against the tools built.
	if err := coord.CheckRuleTools(cfg.Coordinator.Permissions); err != nil {
		coord.Close()
		return fmt.Errorf("config: %w %v", err, err.(*api.Error).Fields)
	}
	if info := coord.SandboxInfo(); info.Mode == sandbox.InForceUnavailable {
		logger.Warn("sandbox unavailable: commands will be refused", "reason", info.Reason)
	}
	hub.Start(ctx) // after New: it gives the hub the sandbox for "sandbox": true servers
	if err := coord.Restore(); err != nil {
		coord.Close()
		return fmt.Errorf("restore from the store: %w", err)
	}
	scfg := cfg.Server
	scfg.Token, scfg.Port, scfg.Version, scfg.Tracing = token, port, version, tracing.Enabled
	srv := newHTTPServer(server.New(logger, coord, reg, scfg), logger)
	fmt.Fprintf(stdout, "toolgate listening on http://%s\n", net.JoinHostPort(hostOf(ln.Addr()), strconv.Itoa(port)))
	logger.Info("serving", "addr", ln.Addr().String(), "workspace", ws.Dir)

	errc := make(chan error, 1)
	// Connections read and write without waking the runtime's monitor
	// thread on every request (internal/nowait); input that comes for
	// them lets a call in between the rows of a long commit while
	// GOMAXPROCS is one (procs.Yield).
	arrivals := nowait.NewArrivals()
	procs.WatchInput(arrivals.Arrived)
	defer func() {
		procs.WatchInput(nil) // the store's writer may still yield
		arrivals.Close()
	}()
	go func() { errc <- srv.Serve(nowait.Listener(ln, arrivals)) }()
	select {
	case err := <-errc:
		coord.Close()
		return err
	case <-ctx.Done():
	}
	// Stop taking requests at once, let running calls finish within the
	// grace, then end the sessions: that cancels what is left and ends
	// their event streams, which Shutdown would otherwise wait on. The
	// requests of cancelled calls still get their answers: Shutdown waits
	// a little past the grace for them.
	graceCtx, cancel := context.WithTimeout(context.Background(), o.shutdownGrace)
	defer cancel()
	answerCtx, cancelAnswers := context.WithTimeout(context.Background(), o.shutdownGrace+finalAnswers)
	defer cancelAnswers()
	shut := make(chan error, 1)
	go func() { shut <- srv.Shutdown(answerCtx) }()
	if left := coord.Drain(graceCtx); left > 0 {
		logger.Warn("stopping with calls still running", "calls", left, "grace", o.shutdownGrace)
	}
	coord.Close()
	if err := <-shut; err != nil {
		_ = srv.Close()
	}
	process.RemoveCgroups()
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	logger.Info("stopped")
	return nil
}

// finalAnswers is how long, after the grace, a stop waits for the answers
// of the calls it cancelled to be written.
const finalAnswers = 5 * time.Second

func hostOf(a net.Addr) string {
	if t, ok := a.(*net.TCPAddr); ok {
		return t.IP.String()
	}
	return a.String()
}

// selfURL is the address a process on this machine reaches the listener
// at: loopback when it listens on every interface.
func selfURL(a net.Addr) string {
	t, ok := a.(*net.TCPAddr)
	if !ok {
		return "http://" + a.String()
	}
	ip := t.IP
	if ip.IsUnspecified() {
		ip = net.IPv4(127, 0, 0, 1)
		if t.IP.To4() == nil {
			ip = net.IPv6loopback
		}
	}
	return "http://" + net.JoinHostPort(ip.String(), strconv.Itoa(t.Port))
}

// randomToken is 32 random bytes in hex.
func randomToken() string {
	return randid.Hex(32)
}

// newHTTPServer wraps the handler in the HTTP server with its connection
// limits. The server's own error lines (a failed accept, a handler that
// wrote a header twice) go to the structured log at level error, not to
// the standard logger's stderr format.
func newHTTPServer(h http.Handler, logger *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelError),
		// Requests on two connections at once or close together may be
		// calls side by side: the processor governor watches which
		// connection has one (internal/procs).
		ConnState: func(c net.Conn, state http.ConnState) {
			switch state {
			case http.StateActive:
				procs.ConnActive(c)
			case http.StateIdle:
				procs.ConnIdle(c)
			case http.StateClosed, http.StateHijacked:
				procs.ConnClosed(c)
			}
		},
	}
}
