package server

import (
	"crypto/sha256"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/toolgate/toolgate/coordinator"
)

// Config is the HTTP side's configuration.
type Config struct {
	// Token is the server token: every scope, named "token" in the audit.
	Token string `json:"-"`
	// Tokens are named tokens with scopes (call, approve, admin,
	// metrics), kept as SHA-256 hashes; tokens_file lines are added to
	// them at start-up.
	Tokens []NamedToken `json:"tokens,omitempty"`
	// TokensFile is a file of named tokens, one "NAME SCOPES SHA256" a
	// line (`toolgate token new` prints such a line); it is hidden from
	// the sandbox like the server token's file.
	TokensFile string `json:"tokens_file,omitempty"`
	// MetricsRequireToken makes /metrics need a token with the metrics
	// scope; it is open by default, as Prometheus servers expect.
	MetricsRequireToken bool `json:"metrics_require_token,omitempty"`
	// AllowedHosts are host names accepted in the Host header besides
	// localhost, 127.0.0.1 and ::1 (which are accepted with any port). An
	// entry with a port ("toolgate.internal:8443") accepts that port only;
	// one without accepts the listening port.
	AllowedHosts []string `json:"allowed_hosts"`
	// AllowedOrigins are origins (scheme://host[:port]) allowed to call
	// besides the server's own, exact or as patterns: "vscode-webview://*",
	// "https://*.example.com", "http://localhost:*". Wildcards that would
	// admit every web site are refused.
	AllowedOrigins []string `json:"allowed_origins"`
	// Port is the port the server listens on; Host headers naming a
	// configured host without a port must name this one. 0 accepts any.
	Port int `json:"-"`
	// MaxBodyBytes caps request bodies.
	MaxBodyBytes int64 `json:"max_body_bytes"`
	// ReadTimeout bounds the time to receive a request body, from the end
	// of its headers (default 30s): a slower body gets 408.
	ReadTimeout coordinator.Duration `json:"read_timeout,omitempty"`
	// SSEStallTimeout is how long an event stream's client may take
	// nothing before it is dropped (default 30s): every write to it has
	// this deadline. Drops are logged and counted in
	// toolgate_sse_dropped_total.
	SSEStallTimeout coordinator.Duration `json:"sse_stall_timeout,omitempty"`
	// SSEHeartbeat is the idle time after which a keep-alive comment is sent.
	SSEHeartbeat time.Duration `json:"-"`
	// Tracing says spans are recorded: a request's traceparent then
	// becomes the parent of its calls' spans.
	Tracing bool `json:"-"`
	// Version is reported by toolgate_build_info.
	Version string `json:"-"`
}

// defaults fills unset fields: every default of the server section is
// here.
func (c *Config) defaults() {
	if c.MaxBodyBytes <= 0 {
		c.MaxBodyBytes = 16 << 20
	}
	if c.ReadTimeout <= 0 {
		c.ReadTimeout = coordinator.Duration(30 * time.Second)
	}
	if c.SSEStallTimeout <= 0 {
		c.SSEStallTimeout = coordinator.Duration(30 * time.Second)
	}
	if c.SSEHeartbeat <= 0 {
		c.SSEHeartbeat = 15 * time.Second
	}
	if c.Version == "" {
		c.Version = "dev"
	}
}

// readTimeout is read_timeout, which defaults has filled in.
func (c *Config) readTimeout() time.Duration { return time.Duration(c.ReadTimeout) }

// Server holds what the route handlers share.
type Server struct {
	logger  *slog.Logger
	coord   *coordinator.Coordinator
	cfg     Config
	metrics *httpMetrics
	streams *eventStreams
	gather  prometheus.Gatherer
	origins originRules
	hosts   []hostRule
	tickets *ticketStore
	// previews admits browsers to a session's port previews (preview_auth.go).
	previews previewStore
	// tokenSum is the server token's SHA-256; tokens the named ones'.
	tokenSum [32]byte
	tokens   tokenTable
	// encodeBufs recycles the buffers encode marshals responses into,
	// bodyBufs those decode reads request bodies into.
	encodeBufs, bodyBufs sync.Pool
	// routeNames keeps the matched routes' patterns (route_names.go).
	routeNames routeNames
}

// New returns the whole HTTP surface as one handler. reg receives the HTTP
// metrics and is what /metrics serves, so the coordinator's series must be
// registered on it too. cfg.Tokens must have passed CheckTokens (New
// panics otherwise, as a start-up programmer error).
func New(logger *slog.Logger, coord *coordinator.Coordinator, reg *prometheus.Registry, cfg Config) http.Handler {
	cfg.defaults()
	tokens, err := newTokenTable(cfg.Tokens)
	if err != nil {
		panic("server: " + err.Error())
	}
	m := newHTTPMetrics(reg, cfg.Version)
	s := &Server{
		logger:   logger,
		coord:    coord,
		cfg:      cfg,
		metrics:  m,
		streams:  newEventStreams(time.Duration(cfg.SSEStallTimeout), cfg.SSEHeartbeat, m.sseSubscribers, m.sseDropped, logger),
		gather:   reg,
		origins:  compileOrigins(cfg.AllowedOrigins, logger),
		hosts:    compileHosts(cfg.AllowedHosts),
		tickets:  newTicketStore(ticketTTL, maxTickets, time.Now),
		tokenSum: sha256.Sum256([]byte(cfg.Token)),
		tokens:   tokens,
	}
	return s.routes()
}
