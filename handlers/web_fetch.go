package handlers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/netguard"
)

// WebFetchInput is the input of web_fetch, with the parameters of Cline's
// WebFetchToolHandler.ts (url, prompt).
type WebFetchInput struct {
	URL    string `json:"url" validate:"required" jsonschema:"the http or https URL of the page to fetch"`
	Prompt string `json:"prompt,omitempty" jsonschema:"what to look for in the page; it is returned above the page so you can apply it"`
}

// newWebFetch serves web_fetch: one GET, the page as markdown.
func newWebFetch(name string, env tool.Env) *tool.Tool {
	web := webEnv(env)
	maxBytes, timeout := web.MaxBytes, web.Timeout
	guard := netguard.Guard{AllowPrivate: web.AllowPrivate, AllowAddresses: web.AllowAddresses}
	return tool.NewTool(tool.Spec[WebFetchInput]{
		Name: name,
		Description: fmt.Sprintf("Fetch a web page (http or https) and return it as markdown. Redirects are followed. "+
			"Pages over %d MiB or slower than %s are refused. Addresses on this machine or its private network are refused "+
			"unless the server's policy allows them.", maxBytes>>20, timeout),
		Run: func(ctx context.Context, call *tool.Call, in *WebFetchInput) (tool.Result, error) {
			g := guard
			g.Rules = urlRules(call)
			return webFetch(ctx, g, maxBytes, timeout, in)
		},
		ConcurrencySafe: func(*WebFetchInput) bool { return true },
		URL:             func(in *WebFetchInput) string { return in.URL },
	})
}

// webEnv is the network tools' settings; a registry built without them
// (tests of other tools) gets the defaults.
func webEnv(env tool.Env) tool.Web {
	if env.Web != nil {
		return *env.Web
	}
	return tool.DefaultWeb()
}

// urlRules asks the call's deny rules about each address it reaches
// after the policy check: a redirect to a denied host is refused.
func urlRules(call *tool.Call) func(*url.URL) error {
	return func(u *url.URL) error { return call.CheckURL(u.String()) }
}

// userAgent names the fetcher to the sites it visits.
const userAgent = "toolgate-web-fetch/1 (+https://github.com/toolgate/toolgate)"

func webFetch(ctx context.Context, guard netguard.Guard, maxBytes int64, timeout time.Duration, in *WebFetchInput) (tool.Result, error) {
	u, err := url.Parse(strings.TrimSpace(in.URL))
	if err != nil {
		return tool.Result{}, tool.Errorf(api.ToolCodeInvalidURL, "%q is not a URL: %v", in.URL, err)
	}
	if err := guard.CheckURL(u); err != nil {
		return tool.Result{}, refusal(u.Redacted(), err)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return tool.Result{}, tool.Errorf(api.ToolCodeInvalidURL, "%q cannot be fetched: %v", in.URL, err)
	}
	req.Header.Set("User-Agent", userAgent)
	req.Header.Set("Accept", "text/html, text/markdown;q=0.9, text/plain;q=0.8, */*;q=0.5")
	client := guard.Client(timeout)
	defer client.CloseIdleConnections()
	resp, err := client.Do(req)
	if err != nil {
		return tool.Result{}, fetchError(ctx, u.Redacted(), timeout, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBytes+1))
	if err != nil {
		return tool.Result{}, fetchError(ctx, u.Redacted(), timeout, err)
	}
	if int64(len(body)) > maxBytes {
		return tool.Result{}, tool.Errorf(api.ToolCodeTooLarge, "%s is larger than %d bytes (%d MiB), the most web_fetch reads; nothing was returned.",
			resp.Request.URL.Redacted(), maxBytes, maxBytes>>20)
	}
	final := resp.Request.URL.Redacted()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return tool.Result{}, tool.Errorf(api.ToolCodeFetchFailed, "%s answered %s.%s", final, resp.Status, excerpt(body))
	}
	text, err := pageText(resp.Header.Get("Content-Type"), body, resp.Request.URL)
	if err != nil {
		return tool.Result{}, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "URL: %s\n", final)
	if final != u.Redacted() {
		fmt.Fprintf(&b, "(redirected from %s)\n", u.Redacted())
	}
	if in.Prompt != "" {
		fmt.Fprintf(&b, "Prompt: %s\n", in.Prompt)
	}
	b.WriteString("\n" + text)
	return tool.TextResult(b.String()), nil
}

// pageText turns a body into text for the model: HTML becomes markdown,
// other text passes as it is, anything else is refused.
func pageText(contentType string, body []byte, pageURL *url.URL) (string, error) {
	mediaType, _, _ := mime.ParseMediaType(contentType)
	if mediaType == "" {
		mediaType = http.DetectContentType(body)
		mediaType, _, _ = mime.ParseMediaType(mediaType)
	}
	switch {
	case mediaType == "text/html" || mediaType == "application/xhtml+xml":
		conv := converter.NewConverter(converter.WithPlugins(base.NewBasePlugin(), commonmark.NewCommonmarkPlugin(), table.NewTablePlugin()))
		md, err := conv.ConvertString(string(body), converter.WithDomain(pageURL.Scheme+"://"+pageURL.Host))
		if err != nil {
			return "", tool.Errorf(api.ToolCodeFetchFailed, "the page could not be converted to markdown: %v", err)
		}
		return md, nil
	case strings.HasPrefix(mediaType, "text/"), mediaType == "application/json", strings.HasSuffix(mediaType, "+json"),
		mediaType == "application/xml", strings.HasSuffix(mediaType, "+xml"), mediaType == "application/javascript":
		return string(body), nil
	}
	return "", tool.Errorf(api.ToolCodeBinaryFile, "the page is %s, not text or HTML; web_fetch returns only text.", mediaType)
}

// excerpt is the start of an error page, to show what the server said.
func excerpt(body []byte) string {
	s := strings.TrimSpace(string(body))
	if s == "" {
		return ""
	}
	if len(s) > 500 {
		s = s[:500] + "…"
	}
	return "\n" + s
}

// refusal is the error for an address the guard refuses.
func refusal(what string, err error) error {
	return tool.Errorf(api.ToolCodeURLRefused, "Refused to fetch %s: %v", what, err)
}

// fetchError explains a failed exchange: a refused address (the first URL,
// a redirect or a name that resolved to one), the time cap, or the network.
func fetchError(ctx context.Context, what string, timeout time.Duration, err error) error {
	if r, ok := netguard.Refused(err); ok {
		var re *netguard.RedirectError
		if errors.As(err, &re) {
			return tool.Errorf(api.ToolCodeURLRefused, "Refused to fetch %s: it redirected to %s, and %v", what, re.To, r)
		}
		return tool.Errorf(api.ToolCodeURLRefused, "Refused to fetch %s: %v", what, r)
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) || isTimeout(err) {
		return tool.Errorf(api.ToolCodeTimeout, "Fetching %s took longer than %s, the most web_fetch waits; nothing was returned.", what, timeout)
	}
	return tool.Errorf(api.ToolCodeFetchFailed, "Fetching %s failed: %v", what, err)
}

func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}
