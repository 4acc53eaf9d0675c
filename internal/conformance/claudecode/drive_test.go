package claudecode

import (
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/conformance"
)

// side fills in the script for one side: its workspace, the web server,
// and the background ids its own earlier results named.
type side struct {
	workspace, web string
	results        func(i int) (conformance.Result, bool)
	// outputs matches the side's per-session directories of output
	// files (normalisation rule 4).
	outputs []*regexp.Regexp
}

// claudeOutputs are Claude Code's per-session directories of output
// files under its home: <home>/.claude/projects/<project>/<session> for
// saved results, <TMPDIR>/claude-<uid>/<project>/<session> for
// background tasks (runClaude sets TMPDIR to <home>/tmp).
func claudeOutputs(home string) []*regexp.Regexp {
	return []*regexp.Regexp{regexp.MustCompile(regexp.QuoteMeta(home) +
		`/(?:\.claude/projects|tmp/claude-\d+)/[^/]+/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)}
}

// toolgateOutputs is toolgate's directory of session sid's output files
// under its commands.output_dir: <dir>/server-<random>/sessions/<sid>.
func toolgateOutputs(dir, sid string) []*regexp.Regexp {
	return []*regexp.Regexp{regexp.MustCompile(regexp.QuoteMeta(dir) + `/server-[^/]+/sessions/` + regexp.QuoteMeta(sid))}
}

// backgroundID finds the id in Claude Code's answer to run_in_background.
var backgroundID = regexp.MustCompile(`with ID: ([A-Za-z0-9_-]+)`)

// Output files the answers name: a long output's, a background
// command's.
var (
	savedFile      = regexp.MustCompile(`Full output saved to: (\S+)`)
	backgroundFile = regexp.MustCompile(`Output is being written to: (\S+?)\.? `)
)

// input returns script call i's input with its placeholders filled in.
func (s side) input(i int) map[string]any {
	pairs := []string{wsPH, s.workspace, webPH, s.web, "{SAVED}", "no-saved-file"}
	bg := 0
	for j := 0; j < i; j++ {
		r, _ := s.results(j)
		text := resultText(r)
		if m := savedFile.FindStringSubmatch(text); m != nil {
			pairs[5] = m[1]
		}
		if script[j].input["run_in_background"] != true {
			continue
		}
		bg++
		id, file := "no-id", "no-file"
		if m := backgroundID.FindStringSubmatch(text); m != nil {
			id = m[1]
		}
		if m := backgroundFile.FindStringSubmatch(text); m != nil {
			file = m[1]
		}
		pairs = append(pairs, fmt.Sprintf("{BG%d}", bg), id, fmt.Sprintf("{OUTBG%d}", bg), file)
	}
	return fill(script[i].input, strings.NewReplacer(pairs...)).(map[string]any)
}

// fill copies v with every string passed through r.
func fill(v any, r *strings.Replacer) any {
	switch v := v.(type) {
	case string:
		return r.Replace(v)
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = fill(x, r)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for k, x := range v {
			out[k] = fill(x, r)
		}
		return out
	}
	return v
}

// resultText is a result's text, its blocks' texts joined.
func resultText(r conformance.Result) string {
	var s string
	if json.Unmarshal(r.Content, &s) == nil {
		return s
	}
	var blocks []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(r.Content, &blocks)
	var parts []string
	for _, b := range blocks {
		parts = append(parts, b.Text)
	}
	return strings.Join(parts, "\n")
}

// webPage is the HTML WebFetch reads.
const webPage = `<!DOCTYPE html><html><head><title>Conformance page</title></head><body>
<h1>Conformance</h1><p>A paragraph with <a href="/other">a link</a> and <b>bold</b> text.</p>
<ul><li>one</li><li>two</li></ul></body></html>`

// newWebServer serves webPage at /page.html and 404 elsewhere, over TLS
// (Claude Code fetches http URLs as https), its certificate written to
// a PEM file for the clients to trust.
func newWebServer(t *testing.T) (*httptest.Server, string) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/page.html" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, webPage)
	}))
	t.Cleanup(srv.Close)
	cert := filepath.Join(t.TempDir(), "web.pem")
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(cert, pemBytes, 0o644); err != nil {
		t.Fatal(err)
	}
	return srv, cert
}
