package server

import (
	"embed"
	"io/fs"
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/toolgate/toolgate/api"
)

// The web console is plain HTML, JavaScript and CSS compiled into the
// binary: nothing to build or install. It is served outside /v1 so the page
// loads without the token, then asks for it and talks only to the public
// API, same-origin, so it needs no CORS exception.
//
//go:embed console
var consoleRoot embed.FS

// consoleFiles is the console directory itself, flat.
var consoleFiles, _ = fs.Sub(consoleRoot, "console")

// consoleCSP allows the console's own files and nothing else: no inline
// script (tool output is shown as text, and a slip would not run), no
// framing (the approve button must not be clickjacked), no form posts.
const consoleCSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; " +
	"img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

func (s *Server) handleConsole(w http.ResponseWriter, r *http.Request) error {
	return s.serveConsoleFile(w, r, "index.html")
}

func (s *Server) handleConsoleFile(w http.ResponseWriter, r *http.Request) error {
	name := chi.URLParam(r, "file")
	if name == "index.html" || !fs.ValidPath(name) {
		return errorf(api.CodeNotFound, "no console file "+r.URL.Path)
	}
	return s.serveConsoleFile(w, r, name)
}

func (s *Server) serveConsoleFile(w http.ResponseWriter, r *http.Request, name string) error {
	if _, err := fs.Stat(consoleFiles, name); err != nil {
		return errorf(api.CodeNotFound, "no console file "+r.URL.Path)
	}
	h := w.Header()
	h.Set("Content-Security-Policy", consoleCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-cache")
	http.ServeFileFS(w, r, consoleFiles, name)
	return nil
}
