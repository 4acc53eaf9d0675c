package server

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"
	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/internal/sandbox"
)

// previewMethods are the methods the preview proxy passes on to a dev
// server: its pages, forms and API (a WebSocket opens with a GET).
var previewMethods = []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// handleListPorts lists the TCP ports listening in the session's network,
// each with its preview URL. A session that has run no command yet has
// no network yet and no ports; a sandbox that gives sessions no network
// of their own is a conflict that says why.
func (s *Server) handleListPorts(w http.ResponseWriter, r *http.Request) error {
	sess, err := s.session(r)
	if err != nil {
		return err
	}
	out := api.PortList{Ports: []api.Port{}}
	info := s.coord.SandboxInfo()
	n, err := sess.SessionNetwork()
	if err != nil {
		if info.Mode != sandbox.InForceBwrap || info.Network == "on" || errors.Is(err, sandbox.ErrNoSessionNetwork) {
			return errorf(api.CodeConflict, "sessions have no network of their own here: "+noNetworkReason(info, err))
		}
		s.encode(w, r, http.StatusOK, out) // no command yet
		return nil
	}
	ports, err := n.Ports()
	if err != nil {
		return err
	}
	for _, p := range ports {
		out.Ports = append(out.Ports, coordinator.PreviewPort(sess.ID, p))
	}
	s.encode(w, r, http.StatusOK, out)
	return nil
}

// noNetworkReason says why a session has no network of its own.
func noNetworkReason(info sandbox.Info, err error) string {
	switch {
	case info.Mode == sandbox.InForceLandlock:
		return "Landlock-only mode shares toolgate's network (see docs/network.md)"
	case info.Mode == sandbox.InForceOff:
		return "the sandbox is off: commands use the host's network"
	case info.Network == "on":
		return "sandbox.network is on: commands use the host's network"
	case err != nil:
		return err.Error()
	}
	return "the sandbox in force (" + info.Mode + ") gives none"
}

// handlePortRoot sends /ports/{port} to /ports/{port}/, so that a page's
// relative links resolve under the preview.
func (s *Server) handlePortRoot(w http.ResponseWriter, r *http.Request) error {
	u := *r.URL
	u.Path += "/"
	if u.RawPath != "" {
		u.RawPath += "/"
	}
	http.Redirect(w, r, u.String(), http.StatusPermanentRedirect)
	return nil
}

// handlePortProxy proxies a request under /ports/{port}/ to that port in
// the session's network, WebSocket upgrades included. The dev server sees
// the path below the prefix, Host localhost:{port}, and none of toolgate's
// credentials.
func (s *Server) handlePortProxy(w http.ResponseWriter, r *http.Request) error {
	sess, err := s.session(r)
	if err != nil {
		return err
	}
	port, err := strconv.Atoi(chi.URLParam(r, "port"))
	if err != nil || port < 1 || port > 65535 {
		return &api.Error{Code: api.CodeValidation, Message: "invalid port", Fields: map[string]string{"port": "must be 1 to 65535"}}
	}
	n, err := sess.SessionNetwork()
	if err != nil {
		return errorf(api.CodeNotFound, "nothing listens on port "+strconv.Itoa(port)+" in this session: it has no network yet")
	}
	prefix := "/v1/sessions/" + url.PathEscape(sess.ID) + "/ports/" + strconv.Itoa(port)
	proxy := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL.Scheme, pr.Out.URL.Host = "http", "localhost:"+strconv.Itoa(port)
			pr.Out.Host = pr.Out.URL.Host
			pr.Out.URL.Path = "/" + strings.TrimPrefix(chi.URLParam(r, "*"), "/")
			pr.Out.URL.RawPath = ""
			pr.Out.Header.Del("Authorization")
			dropPreviewCookie(pr.Out)
			pr.Out.Header.Set("X-Forwarded-Prefix", prefix)
		},
		Transport: &http.Transport{
			DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) { return n.Dial(ctx, port) },
			// One connection's worth: a preview is a person's browser.
			MaxIdleConnsPerHost: 2, DisableCompression: true,
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			s.writeError(w, r, errorf(api.CodeUnavailable, "port "+strconv.Itoa(port)+" of this session did not answer: "+err.Error()))
		},
		ModifyResponse: func(resp *http.Response) error {
			// A redirect to the dev server's own root stays under the preview.
			if loc := resp.Header.Get("Location"); strings.HasPrefix(loc, "/") && !strings.HasPrefix(loc, "//") {
				resp.Header.Set("Location", prefix+loc)
			}
			resp.Header.Set("Referrer-Policy", "no-referrer")
			return nil
		},
	}
	defer proxy.Transport.(*http.Transport).CloseIdleConnections()
	proxy.ServeHTTP(w, r)
	return nil
}
