package codex

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"image"
	"image/png"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/conformance"
	"github.com/toolgate/toolgate/internal/launch"
	"github.com/toolgate/toolgate/internal/testbuild"
)

var update = flag.Bool("update", false, "rewrite testdata from the Codex run")

// The pinned Codex CLI (test.sh installs it) and the model whose classic
// tool list it sends: Codex's default model sends no tools array (its
// tools sit inside a JavaScript exec tool, "code mode").
const (
	codexVersion = "0.169.0"
	codexModel   = "gpt-5.5"
)

// fixture is the workspace both runs start from.
var fixture = map[string]string{
	"notes.txt":   "alpha\nbeta\n",
	"src/main.go": "package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n",
	"old.txt":     "to be deleted\n",
	"pic.png":     pngImage(),
	"quotes.txt":  "say \u201chi\u201d \u2014 ok\n",
}

// pngImage is a small PNG, 4x3, one colour.
func pngImage() string {
	img := image.NewNRGBA(image.Rect(0, 0, 4, 3))
	for i := range img.Pix {
		img.Pix[i] = 0x80
	}
	var b bytes.Buffer
	_ = png.Encode(&b, img)
	return b.String()
}

// steps is the script: Codex's exec_command and its apply_patch (a
// freeform tool, sent as a custom tool call), successes and failures.
var steps = []step{
	{Name: "exec_command", Args: `{"cmd":"echo hello"}`},
	{Name: "exec_command", Args: `{"cmd":"cat notes.txt"}`},
	{Name: "exec_command", Args: `{"cmd":"ls src; exit 3"}`},
	{Name: "exec_command", Args: `{"cmd":"pwd","workdir":"src"}`},
	{Name: "apply_patch", Input: "*** Begin Patch\n*** Add File: new.txt\n+fresh\n+lines\n*** End Patch"},
	{Name: "apply_patch", Input: "*** Begin Patch\n*** Update File: notes.txt\n@@\n alpha\n-beta\n+gamma\n*** End Patch"},
	{Name: "apply_patch", Input: "*** Begin Patch\n*** Update File: notes.txt\n@@\n-no such line\n+x\n*** End Patch"},
	{Name: "apply_patch", Input: "*** Begin Patch\n*** Delete File: old.txt\n*** End Patch"},
	{Name: "apply_patch", Input: "*** Begin Patch\n*** Update File: src/main.go\n@@ func main() {\n-\tprintln(\"hi\")\n+\tprintln(\"hello\")\n*** End Patch"},
	{Name: "apply_patch", Input: "*** Begin Patch\n*** Add File: new.txt\n+replaced\n*** End Patch"},
	{Name: "exec_command", Args: `{"cmd":"cat new.txt notes.txt"}`},
	{Name: "exec_command", Args: `{"cmd":"printf abc"}`},
	// stderr alone: Codex reads stdout and stderr on two pipes, so the
	// order of lines written to both varies from run to run.
	{Name: "exec_command", Args: `{"cmd":"echo err >&2; exit 1"}`},
	{Name: "exec_command", Args: `{"cmd":"seq 1 300","max_output_tokens":20}`},
	{Name: "apply_patch", Input: "*** Begin Patch\n*** Update File: src/main.go\n*** Move to: src/app.go\n@@\n-\tprintln(\"hello\")\n+\tprintln(\"moved\")\n*** End Patch"},
	{Name: "apply_patch", Input: "*** Begin Patch\n*** Update File: missing.txt\n@@\n-a\n+b\n*** End Patch"},
	{Name: "apply_patch", Input: "*** Begin Patch\n*** Delete File: missing.txt\n*** End Patch"},
	{Name: "view_image", Args: `{"path":"missing.png"}`},
	{Name: "write_stdin", Args: `{"session_id":999,"chars":""}`},
	// Terminals and sessions: a command under a PTY, one still running
	// after yield_time_ms (a session id), write_stdin driving it to its
	// end, an interactive python3, and stdin to a session on pipes.
	{Name: "exec_command", Args: `{"cmd":"test -t 0 && test -t 1 && echo on-a-tty","tty":true}`},
	{Name: "exec_command", Args: `{"cmd":"head -n 1","tty":true,"yield_time_ms":500}`},
	{Name: "write_stdin", Args: `{"session_id":$SESSION,"chars":"hello\n","yield_time_ms":2000}`},
	{Name: "exec_command", Args: `{"cmd":"python3 -i -q","tty":true,"yield_time_ms":5000}`},
	{Name: "write_stdin", Args: `{"session_id":$SESSION,"chars":"print(6*7)\n","yield_time_ms":3000}`},
	{Name: "write_stdin", Args: `{"session_id":$SESSION,"chars":"exit()\n","yield_time_ms":2000}`},
	{Name: "exec_command", Args: `{"cmd":"sleep 3","yield_time_ms":250}`},
	{Name: "write_stdin", Args: `{"session_id":$SESSION,"chars":"x"}`},
	// More terminal cases. The environment Codex gives a command, on
	// pipes and under a PTY (its window size too).
	{Name: "exec_command", Args: `{"cmd":"echo \"$TERM|$NO_COLOR|$PAGER|$GIT_PAGER|$GH_PAGER|$LANG|$LC_CTYPE|$LC_ALL|${COLORTERM-unset}|$CODEX_CI\""}`},
	{Name: "exec_command", Args: `{"cmd":"echo \"$TERM|$NO_COLOR|$LANG\"; stty size","tty":true}`},
	// A non-zero exit under a PTY (stdout and stderr are one stream, in
	// order), a long output cut to its head and tail, a command on pipes
	// reading its empty stdin, bytes that are not UTF-8.
	{Name: "exec_command", Args: `{"cmd":"echo out; echo err >&2; exit 7","tty":true}`},
	{Name: "exec_command", Args: `{"cmd":"seq 1 300","tty":true,"max_output_tokens":20}`},
	{Name: "exec_command", Args: `{"cmd":"cat; echo rc=$?"}`},
	{Name: "exec_command", Args: `{"cmd":"printf 'a\\377b\\n'"}`},
	// A command on pipes still running after yield_time_ms (it has no
	// stdin: only a sleep keeps it running), then an empty poll, which
	// Codex lets wait 5 s at least, so it sees the command end.
	{Name: "exec_command", Args: `{"cmd":"echo start; sleep 2; echo end","yield_time_ms":500}`},
	{Name: "write_stdin", Args: `{"session_id":$SESSION,"chars":""}`},
	// A command that waits on its input and ends during write_stdin with
	// a non-zero exit; its session is then unknown.
	{Name: "exec_command", Args: `{"cmd":"head -n 1; exit 4","tty":true,"yield_time_ms":1000}`},
	{Name: "write_stdin", Args: `{"session_id":$SESSION,"chars":"hi\n","yield_time_ms":2000}`},
	{Name: "write_stdin", Args: `{"session_id":$SESSION,"chars":""}`},
	// An interactive bash: its prompt, a command typed, an empty poll, a
	// long output cut within write_stdin's max_output_tokens, Ctrl-D.
	{Name: "exec_command", Args: `{"cmd":"bash --norc --noprofile -i","tty":true,"yield_time_ms":2000}`},
	{Name: "write_stdin", Args: `{"session_id":$SESSION,"chars":"echo $((6*7))\n","yield_time_ms":1000}`},
	{Name: "write_stdin", Args: `{"session_id":$SESSION,"chars":"","yield_time_ms":250}`},
	{Name: "write_stdin", Args: `{"session_id":$SESSION,"chars":"seq 1 300\n","yield_time_ms":1000,"max_output_tokens":20}`},
	{Name: "write_stdin", Args: `{"session_id":$SESSION,"chars":"\u0004","yield_time_ms":2000}`},
	// cat under a PTY: a line echoed twice, then Ctrl-C.
	{Name: "exec_command", Args: `{"cmd":"cat","tty":true,"yield_time_ms":500}`},
	{Name: "write_stdin", Args: `{"session_id":$SESSION,"chars":"abc\n","yield_time_ms":500}`},
	{Name: "write_stdin", Args: `{"session_id":$SESSION,"chars":"\u0003","yield_time_ms":2000}`},
	// An output past Codex's 1 MiB buffer: its head and tail around the
	// bytes left out.
	{Name: "exec_command", Args: `{"cmd":"seq 1 200000","max_output_tokens":50}`},
	// A write to a PTY command that ended after its last answer: the
	// second command's own run leaves the first one the time to end.
	{Name: "exec_command", Args: `{"cmd":"sleep 1","tty":true,"yield_time_ms":250}`},
	{Name: "exec_command", Args: `{"cmd":"sleep 2"}`},
	{Name: "write_stdin", Args: `{"session_id":$SESSION,"chars":"x"}`},
	// What a model sends every day: one patch touching several files (an
	// added file, an update of two hunks, a deletion), an update anchored
	// at the end of a file, a workdir that does not exist, a login shell
	// or not, a real image.
	{Name: "apply_patch", Input: "*** Begin Patch\n*** Add File: multi/a.txt\n+a\n*** Update File: notes.txt\n@@\n-alpha\n+ALPHA\n@@\n gamma\n+delta\n*** Delete File: new.txt\n*** End Patch"},
	{Name: "apply_patch", Input: "*** Begin Patch\n*** Update File: notes.txt\n@@\n delta\n+omega\n*** End of File\n*** End Patch"},
	{Name: "exec_command", Args: `{"cmd":"cat notes.txt multi/a.txt; ls"}`},
	{Name: "exec_command", Args: `{"cmd":"pwd","workdir":"nope"}`},
	{Name: "exec_command", Args: `{"cmd":"pwd","workdir":"notes.txt"}`},
	{Name: "exec_command", Args: `{"cmd":"shopt login_shell"}`},
	{Name: "exec_command", Args: `{"cmd":"shopt login_shell","login":false}`},
	{Name: "view_image", Args: `{"path":"pic.png"}`},
	// Patches as models get them wrong: context with trailing spaces the
	// file lacks, ASCII quotes and dash for the file's typographic ones,
	// a patch whose second file fails after its first was added.
	{Name: "apply_patch", Input: "*** Begin Patch\n*** Update File: notes.txt\n@@\n ALPHA   \n-gamma\n+GAMMA\n*** End Patch"},
	{Name: "apply_patch", Input: "*** Begin Patch\n*** Update File: quotes.txt\n@@\n-say \"hi\" - ok\n+said\n*** End Patch"},
	{Name: "apply_patch", Input: "*** Begin Patch\n*** Add File: multi/b.txt\n+b\n*** Update File: notes.txt\n@@\n-nope\n+x\n*** End Patch"},
	{Name: "exec_command", Args: `{"cmd":"cat notes.txt quotes.txt; ls multi"}`},
	// The shell and the login profile (profileHome): a variable only the
	// profile exports, with login left out, false, and under a terminal;
	// bash's [[ in sh, named by a path, and in bash; an unknown shell
	// (Codex runs /bin/sh) with the profile.
	{Name: "exec_command", Args: `{"cmd":"echo \"profile=${TOOLGATE_PROFILE-unset}\""}`},
	{Name: "exec_command", Args: `{"cmd":"echo \"profile=${TOOLGATE_PROFILE-unset}\"","login":false}`},
	{Name: "exec_command", Args: `{"cmd":"echo \"profile=${TOOLGATE_PROFILE-unset}\"","tty":true}`},
	{Name: "exec_command", Args: `{"cmd":"[[ a == a ]] 2>/dev/null && echo bash || echo posix","shell":"/bin/sh"}`},
	{Name: "exec_command", Args: `{"cmd":"[[ a == a ]] 2>/dev/null && echo bash || echo posix","shell":"/usr/bin/bash","login":false}`},
	{Name: "exec_command", Args: `{"cmd":"[ -n \"$BASH_VERSION\" ] && echo bash || echo sh; echo \"profile=${TOOLGATE_PROFILE-unset}\"","shell":"fish"}`},
}

// The figures measured so far, which a change may only raise.
const (
	minSameOutputs = 67
	minSameFiles   = 5
)

// codexCLI is the installed Codex CLI launcher.
func codexCLI(t *testing.T) string {
	t.Helper()
	nm := os.Getenv("TOOLGATE_CODEX_DIR")
	if nm == "" {
		t.Skip("TOOLGATE_CODEX_DIR is not set; test.sh installs @openai/codex@" + codexVersion + " and sets it")
	}
	bin := filepath.Join(nm, ".bin", "codex")
	out, err := exec.Command(bin, "--version").Output()
	if err != nil || !strings.Contains(string(out), codexVersion) {
		t.Fatalf("%s --version = %q, %v; want %s", bin, out, err, codexVersion)
	}
	return bin
}

func writeWorkspace(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range fixture {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// runCodex runs `codex exec --json` through the steps and returns the
// requests it sent.
func runCodex(t *testing.T, bin, ws string) []json.RawMessage {
	t.Helper()
	m, err := newMock(steps)
	if err != nil {
		t.Fatal(err)
	}
	defer m.close()
	home := t.TempDir()
	config := `model = "` + codexModel + `"
model_provider = "mock"
approval_policy = "never"
sandbox_mode = "danger-full-access"

[model_providers.mock]
name = "mock"
base_url = "` + m.URL + `"
env_key = "TOOLGATE_CODEX_MOCK_KEY"
wire_api = "responses"
`
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "exec", "--json", "--skip-git-repo-check", "-C", ws, "follow the script")
	// A HOME of its own (profileHome): Codex gives commands the
	// environment of a login shell, which would otherwise read this
	// machine's profile.
	cmd.Env = append(os.Environ(), "CODEX_HOME="+home, "HOME="+profileHome(t), "TOOLGATE_CODEX_MOCK_KEY=test")
	cmd.Stdin = strings.NewReader("")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("codex exec: %v\n%s", err, out)
	}
	return m.bodies()
}

// profileHome is a HOME whose login profile (~/.profile, which bash and
// sh both read as login shells) exports a variable, the same for Codex
// and for toolgate.
func profileHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, ".profile"), []byte("export TOOLGATE_PROFILE=login\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return home
}

// toolgate is a toolgate process serving ws, and the session the steps
// go to.
type toolgate struct{ url, token, session string }

func startToolgate(t *testing.T, ws string) toolgate {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 8*time.Minute)
	t.Cleanup(cancel)
	// Its commands' HOME is a profileHome too; bound into the sandbox,
	// whose /tmp is its own.
	home := profileHome(t)
	srv, err := launch.Start(ctx, testbuild.Binary(t, testbuild.Toolgate), launch.Options{
		Args:   launch.ServeArgs(ws, "--store", "memory", "--log-format", "json"),
		Config: `{"policy": {"allow_all": true}, "sandbox": {"writable": [` + strconv.Quote(home) + `]}}`,
		Env:    []string{"HOME=" + home},
		Token:  "codex-conformance-token",
	})
	if err != nil {
		t.Fatalf("toolgate did not start: %v", err)
	}
	t.Cleanup(srv.Kill)
	tg := toolgate{url: srv.URL, token: srv.Token}
	tg.session = tg.newSession(t)
	return tg
}

// post sends a JSON body to toolgate.
func (tg toolgate) post(t *testing.T, path string, v any) *http.Response {
	t.Helper()
	body, _ := json.Marshal(v)
	// A step's longest wait is its yield time (30 s at most): a call that
	// waits longer awaits an approval nobody gives, and fails the step.
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, tg.url+path, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+tg.token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// newSession creates the session the steps go to, in the codex dialect.
func (tg toolgate) newSession(t *testing.T) string {
	t.Helper()
	resp := tg.post(t, "/v1/sessions", map[string]string{"dialect": "codex"})
	defer resp.Body.Close()
	var s struct {
		ID string `json:"id"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&s); err != nil || s.ID == "" {
		t.Fatalf("creating a codex session: status %d, %v", resp.StatusCode, err)
	}
	return s.ID
}

// run posts step n as a Responses item and returns its output item;
// before holds the outputs so far, whose last running session a step's
// $SESSION names.
func (tg toolgate) run(t *testing.T, n int, before string) output {
	t.Helper()
	resp := tg.post(t, "/v1/sessions/"+tg.session+"/messages", []any{steps[n].withSession(before).item(callID(n))})
	defer resp.Body.Close()
	var got struct {
		Output []output `json:"output"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil || resp.StatusCode != http.StatusOK || len(got.Output) != 1 {
		t.Fatalf("step %d: status %d, %v, %+v", n, resp.StatusCode, err, got)
	}
	return got.Output[0]
}

// The figures that differ from run to run: Codex's wall time and output
// chunk id, toolgate's durations.
var (
	wallTime = regexp.MustCompile(`Wall time: [0-9.]+ seconds`)
	chunkID  = regexp.MustCompile(`Chunk ID: \w+`)
	session  = regexp.MustCompile(`(session ID|Unknown process id) \d+`)
	duration = regexp.MustCompile(`\b[0-9]+(\.[0-9]+)? ?(ms|s)\b`)
)

// normal is an output with the workspace path and timing figures
// replaced, so that two runs on two workspaces compare.
func normal(text, ws string) string {
	text = strings.ReplaceAll(text, ws, "$WORKSPACE")
	text = wallTime.ReplaceAllString(text, "Wall time: N seconds")
	text = chunkID.ReplaceAllString(text, "Chunk ID: N")
	text = session.ReplaceAllString(text, "$1 N")
	return duration.ReplaceAllString(text, "N$2")
}

// files reads a workspace's files, by slash path.
func files(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCodexConformance runs the script through the real Codex CLI and
// through toolgate, and reports how many outputs and files are the same,
// which may not fall below the figures measured before. Codex's tool list and outputs are kept in
// testdata (go test -update rewrites them), so a change in the pinned
// CLI's shapes shows.
func TestCodexConformance(t *testing.T) {
	bin := codexCLI(t)
	wsCodex, wsTG := writeWorkspace(t), writeWorkspace(t)
	requests := runCodex(t, bin, wsCodex)
	if len(requests) != len(steps)+1 {
		t.Fatalf("codex sent %d requests, want %d (one per step and the last)", len(requests), len(steps)+1)
	}
	var first struct {
		Model string            `json:"model"`
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(requests[0], &first); err != nil || first.Model != codexModel {
		t.Fatalf("first request: model %q, %v", first.Model, err)
	}
	codexOut := outputs(requests, len(steps))
	for n, o := range codexOut {
		if o.Type == "" {
			t.Fatalf("codex sent no output for step %d (%s)", n, steps[n].Name)
		}
	}
	checkRecord(t, "tools.json", first.Tools)
	normalized := make([]map[string]string, len(steps))
	for n, o := range codexOut {
		normalized[n] = map[string]string{"type": o.Type, "output": normal(o.text(), wsCodex)}
	}
	checkRecord(t, "outputs.json", normalized)

	tg := startToolgate(t, wsTG)
	same := 0
	var before strings.Builder
	for n := range steps {
		got := tg.run(t, n, before.String())
		before.WriteString(got.text())
		want := normalized[n]["output"]
		if g := normal(got.text(), wsTG); got.Type == codexOut[n].Type && g == want {
			same++
		} else {
			t.Logf("step %d %s differs:\n codex:    %q\n toolgate: %q (%s)", n, steps[n].Name, want, g, got.Type)
		}
	}
	a, b := files(t, wsCodex), files(t, wsTG)
	names := slices.Sorted(func(yield func(string) bool) {
		seen := map[string]bool{}
		for _, m := range []map[string]string{a, b} {
			for k := range m {
				if !seen[k] && !yield(k) {
					return
				}
				seen[k] = true
			}
		}
	})
	sameFiles := 0
	for _, name := range names {
		ca, okA := a[name]
		cb, okB := b[name]
		if okA == okB && ca == cb {
			sameFiles++
		} else {
			t.Logf("file %s differs: codex %q (%v), toolgate %q (%v)", name, ca, okA, cb, okB)
		}
	}
	t.Logf("codex %s (%s) vs toolgate: %d of %d outputs identical, %d of %d files identical",
		codexVersion, codexModel, same, len(steps), sameFiles, len(names))
	if err := conformance.Announce("Codex %s (%s): identical %d of %d outputs, files %d of %d",
		codexVersion, codexModel, same, len(steps), sameFiles, len(names)); err != nil {
		t.Log(err)
	}
	if same < minSameOutputs || sameFiles < minSameFiles {
		t.Errorf("identical outputs %d, files %d: fewer than the %d and %d measured before", same, sameFiles, minSameOutputs, minSameFiles)
	}
}

// checkRecord compares v with testdata/name, or writes it there with
// -update.
func checkRecord(t *testing.T, name string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, append(got, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update records it)", err)
	}
	if string(bytes.TrimSpace(want)) != string(got) {
		t.Errorf("codex's %s changed from testdata/%s (go test -update rewrites it):\n%s", name, name, got)
	}
}
