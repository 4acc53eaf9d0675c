package subagents

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/capbuf"
)

// subagentRequest is what the HTTP runner is POSTed: everything the
// command runner gets in its environment and on stdin.
type subagentRequest struct {
	Agent        string `json:"agent"`
	SystemPrompt string `json:"system_prompt"`
	Prompt       string `json:"prompt"`
	ToolgateURL  string `json:"toolgate_url"`
	Token        string `json:"token"`
	SessionID    string `json:"session_id"`
}

// subagentHTTP has no timeout of its own: each run's context bounds it,
// as a streamed answer may legitimately take minutes. It does not follow
// redirects, which would turn the POST into a GET without the job: a
// 3xx fails the call, naming the status.
var subagentHTTP = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// maxSubagentBody bounds what is read of a runner's response; a runner
// that streams without end is cut off there.
const maxSubagentBody = 64 << 20

var errSubagentTimeout = errors.New("subagent run timed out")

// runHTTPSubagent POSTs the job to the HTTP runner. The response body is
// the answer; it is passed on as tool.output while it arrives, so a
// runner that streams (chunked text or text/event-stream) shows progress.
// A cancelled call returns what arrived before it stopped.
func (src *Source) runHTTPSubagent(ctx context.Context, call *tool.Call, j subagentJob) (tool.Result, error) {
	sc, a := src.cfg, j.agent
	body, err := json.Marshal(subagentRequest{Agent: a.Name, SystemPrompt: a.SystemPrompt, Prompt: j.prompt,
		ToolgateURL: sc.ToolgateURL, Token: j.token, SessionID: j.session})
	if err != nil {
		return tool.Result{}, err
	}
	runCtx, cancel := context.WithTimeoutCause(ctx, j.timeout, errSubagentTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(runCtx, http.MethodPost, sc.URL, bytes.NewReader(body))
	if err != nil {
		return tool.Result{}, tool.Errorf(api.ToolCodeFailed, "invalid subagents.url: %v", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream, text/plain;q=0.9, */*;q=0.5")
	for k, v := range sc.Headers {
		req.Header.Set(k, v)
	}
	answer := &capbuf.Buffer{Max: maxSubagentAnswer}
	resp, err := subagentHTTP.Do(req)
	if err == nil {
		defer resp.Body.Close()
		err = readSubagentResponse(resp, answer, call.Output)
	}
	switch {
	case errors.Is(context.Cause(runCtx), errSubagentTimeout):
		return tool.Result{}, tool.Errorf(api.ToolCodeFailed, "the %s subagent timed out after %s", a.Name, j.timeout)
	case ctx.Err() != nil:
		return tool.TextResult(string(bytes.TrimSpace(answer.Bytes()))), nil
	case err != nil:
		return tool.Result{}, tool.Errorf(api.ToolCodeFailed, "the %s subagent failed: %v", a.Name, err)
	}
	return tool.TextResult(string(bytes.TrimSpace(answer.Bytes()))), nil
}

// readSubagentResponse reads a runner's answer into answer, passing each
// piece to output as it arrives. A status other than 2xx is an error
// carrying the start of the body.
func readSubagentResponse(resp *http.Response, answer *capbuf.Buffer, output func(stream, chunk string)) error {
	body := io.LimitReader(resp.Body, maxSubagentBody)
	if resp.StatusCode/100 != 2 {
		b, _ := io.ReadAll(io.LimitReader(body, 1024))
		return fmt.Errorf("the runner answered %s: %s", resp.Status, strings.TrimSpace(string(b)))
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "text/event-stream" {
		return readSubagentEvents(body, answer, output)
	}
	buf := make([]byte, 32<<10)
	held := 0 // bytes of an incomplete rune kept for the next read
	for {
		n, err := body.Read(buf[held:])
		n += held
		cut := wholeRunes(buf[:n])
		if err != nil {
			cut = n
		}
		if cut > 0 {
			chunk := string(buf[:cut])
			answer.Add(chunk)
			output("stdout", chunk)
		}
		held = copy(buf, buf[cut:n])
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// readSubagentEvents reads a text/event-stream answer: each event's data
// is a piece of the answer and one tool.output, except an event named
// "result", whose data replaces the answer (a runner that streams its
// reasoning can end with the final answer alone).
func readSubagentEvents(body io.Reader, answer *capbuf.Buffer, output func(stream, chunk string)) error {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 64<<10), maxSubagentAnswer)
	var event string
	var data []string
	dispatch := func() {
		if data == nil {
			event = ""
			return
		}
		text := strings.Join(data, "\n")
		if event == "result" {
			answer.Reset()
		} else {
			output("stdout", text)
		}
		answer.Add(text)
		event, data = "", nil
	}
	for sc.Scan() {
		line := sc.Text()
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch {
		case line == "":
			dispatch()
		case field == "event":
			event = value
		case field == "data":
			data = append(data, value)
		}
	}
	dispatch()
	return sc.Err()
}

// wholeRunes is the length of b's longest prefix that does not end in
// the middle of a UTF-8 sequence, so that streamed chunks stay valid.
func wholeRunes(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if utf8.FullRune(b[i:]) {
				return len(b)
			}
			return i
		}
	}
	return len(b)
}
