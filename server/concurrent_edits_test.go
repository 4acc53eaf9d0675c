package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
)

// counterPattern finds the shared counter in a read_file result.
var counterPattern = regexp.MustCompile(`count: (\d+)`)

// editAttempt is what one read-then-replace of the counter came to.
type editAttempt struct {
	ok      bool
	changed bool   // refused with file_changed
	other   string // any other outcome, for the failure message
}

// TestConcurrentEditsLoseNothing has many sessions, over /v1 and over
// /mcp, each read the shared counter and replace its line with the next
// value, as a model would, with Cline's replace_in_file, write_to_file or
// apply_patch, or with Claude Code's Read and Edit (in claude_code
// sessions: Edit's old_string/new_string, tools/FileEditTool), or with the
// Messages API's text editor (in anthropic sessions: view, then
// str_replace). Every edit reported as a success must be in the final
// value, and every loser must be told file_changed: the stale-file check
// and the write are one step per path across sessions, entry points and
// dialects.
func TestConcurrentEditsLoseNothing(t *testing.T) {
	const (
		httpSessions = 8
		ccSessions   = 4
		apiSessions  = 4
		mcpSessions  = 8
		rounds       = 6
	)
	s := newEditServer(t, coordinator.DefaultConfig(), map[string]string{"counter.txt": "header\ncount: 0\nfooter\n"})
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()

	var workers []func(round int) editAttempt
	for i := range httpSessions {
		sid := decodeBody[api.Session](t, s.do(t, http.MethodPost, "/v1/sessions", map[string]any{"mode": "act"}), http.StatusCreated).ID
		edit := counterEdits[i%len(counterEdits)]
		workers = append(workers, func(round int) editAttempt {
			return httpCounterEdit(ctx, s, sid, fmt.Sprintf("toolu_h%d_%d", i, round), clineRead, edit)
		})
	}
	counter := filepath.Join(s.dir, "counter.txt")
	for i := range ccSessions {
		sid := decodeBody[api.Session](t, s.do(t, http.MethodPost, "/v1/sessions", map[string]any{"dialect": "claude_code"}), http.StatusCreated).ID
		read := func() (string, map[string]any) { return "Read", map[string]any{"file_path": counter} }
		edit := func(read string) (string, map[string]any, error) {
			n, err := readCounter(read)
			return "Edit", map[string]any{"file_path": counter,
				"old_string": fmt.Sprintf("count: %d\n", n), "new_string": fmt.Sprintf("count: %d\n", n+1)}, err
		}
		workers = append(workers, func(round int) editAttempt {
			return httpCounterEdit(ctx, s, sid, fmt.Sprintf("toolu_c%d_%d", i, round), read, edit)
		})
	}
	for i := range apiSessions {
		// The Messages API's text editor (dialect anthropic): view, then
		// str_replace, as Anthropic's reference implementation
		// (computer-use-demo tools/edit.py) is driven.
		sid := decodeBody[api.Session](t, s.do(t, http.MethodPost, "/v1/sessions", map[string]any{"dialect": "anthropic"}), http.StatusCreated).ID
		read := func() (string, map[string]any) {
			return "str_replace_based_edit_tool", map[string]any{"command": "view", "path": "counter.txt"}
		}
		edit := func(read string) (string, map[string]any, error) {
			n, err := readCounter(read)
			return "str_replace_based_edit_tool", map[string]any{"command": "str_replace", "path": "counter.txt",
				"old_str": fmt.Sprintf("count: %d\n", n), "new_str": fmt.Sprintf("count: %d\n", n+1)}, err
		}
		workers = append(workers, func(round int) editAttempt {
			return httpCounterEdit(ctx, s, sid, fmt.Sprintf("toolu_a%d_%d", i, round), read, edit)
		})
	}
	for i := range mcpSessions {
		sid := decodeBody[api.Session](t, s.do(t, http.MethodPost, "/v1/sessions", map[string]any{"mode": "act"}), http.StatusCreated).ID
		cs, err := connectFacade(t, s.URL+"/mcp?session="+sid, testToken)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cs.Close() })
		edit := counterEdits[i%len(counterEdits)]
		workers = append(workers, func(int) editAttempt { return mcpCounterEdit(ctx, cs, edit) })
	}

	results := make(chan editAttempt, len(workers)*rounds)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for _, w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for r := range rounds {
				results <- w(r)
			}
		}()
	}
	close(start)
	waitAll(t, &wg)
	close(results)

	succeeded, lost := 0, 0
	for a := range results {
		switch {
		case a.ok:
			succeeded++
		case a.changed:
			lost++
		default:
			t.Errorf("an attempt ended neither in success nor in file_changed: %s", a.other)
		}
	}
	m := counterPattern.FindStringSubmatch(s.file(t, "counter.txt"))
	if m == nil {
		t.Fatalf("counter.txt = %q, the counter line is gone", s.file(t, "counter.txt"))
	}
	final, _ := strconv.Atoi(m[1])
	t.Logf("%d edits succeeded, %d were refused with file_changed; final count %d", succeeded, lost, final)
	if final != succeeded {
		t.Errorf("final count = %d, but %d edits reported success: %d updates lost", final, succeeded, succeeded-final)
	}
	if succeeded == 0 {
		t.Error("no edit succeeded")
	}
}

// counterEdit turns a read of the counter into the call that increments
// it: a tool name and its input.
type counterEdit func(read string) (string, map[string]any, error)

// counterEdits are the edit tools every session rotates through.
var counterEdits = []counterEdit{
	func(read string) (string, map[string]any, error) {
		n, err := readCounter(read)
		return "replace_in_file", map[string]any{"path": "counter.txt",
			"diff": searchReplace(fmt.Sprintf("count: %d\n", n), fmt.Sprintf("count: %d\n", n+1))}, err
	},
	func(read string) (string, map[string]any, error) {
		n, err := readCounter(read)
		return "write_to_file", map[string]any{"path": "counter.txt",
			"content": fmt.Sprintf("header\ncount: %d\nfooter\n", n+1)}, err
	},
	func(read string) (string, map[string]any, error) {
		n, err := readCounter(read)
		return "apply_patch", map[string]any{"input": fmt.Sprintf("*** Begin Patch\n*** Update File: counter.txt\n"+
			" header\n-count: %d\n+count: %d\n footer\n*** End Patch\n", n, n+1)}, err
	},
}

// readCounter reads the counter out of a read_file result.
func readCounter(read string) (int, error) {
	m := counterPattern.FindStringSubmatch(read)
	if m == nil {
		return 0, fmt.Errorf("read_file result %q has no counter", read)
	}
	return strconv.Atoi(m[1])
}

// clineRead is the read_file call of the counter.
func clineRead() (string, map[string]any) { return "read_file", map[string]any{"path": "counter.txt"} }

func httpCounterEdit(ctx context.Context, s *editServer, sid, id string, read func() (string, map[string]any), edit counterEdit) editAttempt {
	call := func(id, name string, input map[string]any) (api.CallRecord, string, error) {
		body, _ := json.Marshal(assistant(toolUse(id, name, input)))
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/v1/sessions/"+sid+"/messages", bytes.NewReader(body))
		if err != nil {
			return api.CallRecord{}, "", err
		}
		req.Header.Set("Authorization", "Bearer "+testToken)
		req.Header.Set("Content-Type", "application/json")
		resp, err := s.Client().Do(req)
		if err != nil {
			return api.CallRecord{}, "", err
		}
		defer resp.Body.Close()
		var out api.MessageResponse
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK {
			return api.CallRecord{}, "", fmt.Errorf("status %d: %v", resp.StatusCode, err)
		}
		if len(out.Calls) != 1 || len(out.Message.Content) != 1 {
			return api.CallRecord{}, "", fmt.Errorf("%d calls in the answer, want 1", len(out.Calls))
		}
		text := ""
		for _, c := range out.Message.Content[0].Content {
			text += c.Text
		}
		return out.Calls[0], text, nil
	}
	readName, readInput := read()
	rec, text, err := call(id+"_read", readName, readInput)
	if err != nil || rec.Status != api.StatusSucceeded {
		return editAttempt{other: fmt.Sprintf("read: %v %+v %s", err, rec, text)}
	}
	name, input, err := edit(text)
	if err != nil {
		return editAttempt{other: err.Error()}
	}
	rec, text, err = call(id+"_edit", name, input)
	switch {
	case err != nil:
		return editAttempt{other: err.Error()}
	case rec.Status == api.StatusSucceeded:
		return editAttempt{ok: true}
	case rec.Error != nil && rec.Error.Code == api.ToolCodeFileChanged:
		return editAttempt{changed: true}
	}
	return editAttempt{other: fmt.Sprintf("%s over /v1: %+v %s", name, rec, text)}
}

func mcpCounterEdit(ctx context.Context, cs *mcp.ClientSession, edit counterEdit) editAttempt {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "counter.txt"}})
	if err != nil || res.IsError {
		return editAttempt{other: fmt.Sprintf("read over /mcp: %v %v", err, res)}
	}
	name, input, err := edit(mcpText(res))
	if err != nil {
		return editAttempt{other: err.Error()}
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: input})
	switch {
	case err != nil:
		return editAttempt{other: err.Error()}
	case !res.IsError:
		return editAttempt{ok: true}
	case strings.Contains(mcpText(res), "changed on disk"):
		return editAttempt{changed: true}
	}
	return editAttempt{other: name + " over /mcp: " + mcpText(res)}
}
