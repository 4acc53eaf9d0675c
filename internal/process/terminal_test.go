package process

import (
	"io"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/toolgate/toolgate/internal/sandbox"
	"github.com/toolgate/toolgate/internal/testwait"
)

// screen gathers a terminal run's live output and lets a test wait for
// a text in it.
type screen struct {
	mu   sync.Mutex
	text strings.Builder
	more chan struct{}
}

func newScreen() *screen { return &screen{more: make(chan struct{}, 1)} }

func (s *screen) add(_, chunk string) {
	s.mu.Lock()
	s.text.WriteString(chunk)
	s.mu.Unlock()
	select {
	case s.more <- struct{}{}:
	default:
	}
}

func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.text.String()
}

// waitFor waits until the output matches re, at most ten seconds.
func (s *screen) waitFor(t *testing.T, re string) {
	t.Helper()
	want := regexp.MustCompile(re)
	deadline := time.After(10 * time.Second)
	for !want.MatchString(s.String()) {
		select {
		case <-s.more:
		case <-deadline:
			t.Fatalf("output never matched %q; it is %q", re, s.String())
		}
	}
}

// sandboxes are the confinements available here, none included.
func sandboxes(t *testing.T) map[string]*sandbox.Sandbox {
	out := map[string]*sandbox.Sandbox{"none": nil}
	for name, mode := range map[string]string{"bwrap": sandbox.ModeBwrap, "landlock": sandbox.ModeLandlock} {
		sb := sandbox.New(sandbox.Config{Mode: mode})
		want := map[string]string{"bwrap": sandbox.InForceBwrap, "landlock": sandbox.InForceLandlock}[name]
		if sb.Mode() != want {
			sb.Close()
			t.Logf("no %s here: %s", name, sb.Info().Reason)
			continue
		}
		t.Cleanup(sb.Close)
		out[name] = sb
	}
	return out
}

// TestTerminalIsTheCommandsTerminal: under a terminal the command's
// standard streams are a pseudo-terminal of the asked size, which it
// finds under its own name, inside the sandbox too.
func TestTerminalIsTheCommandsTerminal(t *testing.T) {
	for name, sb := range sandboxes(t) {
		t.Run(name, func(t *testing.T) {
			ws := t.TempDir()
			o := Options{Command: "tty; stty size; [ -t 0 ] && [ -t 1 ] && [ -t 2 ] && echo all-three", Dir: ws, Env: os.Environ(),
				Sandbox: sb, Confine: sandbox.Run{Workspace: ws}, Terminal: NewTerminal(30, 100)}
			res, out := run(t, t.Context(), o)
			got := text(t, out)
			if res.ExitCode != 0 || !regexp.MustCompile(`^/dev/pts/\d+\r\n30 100\r\nall-three\r\n$`).MatchString(got) {
				t.Errorf("exit %d, output %q; want 0, /dev/pts/N, 30 100 and all-three with terminal line ends", res.ExitCode, got)
			}
		})
	}
}

// TestTerminalDrivesAnInteractiveShell: an interactive bash under a
// terminal reads what is written to it, has job control (its terminal is
// its controlling one), follows a resize, and ends when told.
func TestTerminalDrivesAnInteractiveShell(t *testing.T) {
	for name, sb := range sandboxes(t) {
		t.Run(name, func(t *testing.T) {
			ws := t.TempDir()
			in, input := io.Pipe()
			defer input.Close()
			term := NewTerminal(0, 0)
			s := newScreen()
			o := Options{Command: "PS1='$ ' exec bash --norc --noprofile -i", Dir: ws, Env: os.Environ(), Stdin: in,
				Sandbox: sb, Confine: sandbox.Run{Workspace: ws}, Terminal: term, OnChunk: s.add}
			ended := make(chan Result, 1)
			go func() {
				res, _ := run(t, t.Context(), o)
				ended <- res
			}()
			s.waitFor(t, `\$ $`)
			write(t, input, "echo $((6*7)); stty size\n")
			// Resized only once the next prompt shows: readline reads
			// the window size and writes it back as it prepares the
			// terminal for each line (before its prompt), so a resize
			// between the two is undone, as under any terminal.
			s.waitFor(t, `\r42\r\n24 80\r\n(\x1b\[\?2004h)?\$ $`)
			if err := term.Resize(40, 120); err != nil {
				t.Fatalf("Resize: %v", err)
			}
			write(t, input, "sleep 30 &\njobs; kill %1; stty size\n")
			s.waitFor(t, `\[1\]\+  Running +sleep 30 &`)
			s.waitFor(t, `\r\n40 120\r\n`)
			write(t, input, "exit 3\n")
			res := testwait.Receive(t, ended)
			if res.ExitCode != 3 || strings.Contains(s.String(), "no job control") {
				t.Errorf("exit %d, output %q; want 3 and job control", res.ExitCode, s.String())
			}
			if err := term.Resize(10, 10); err == nil {
				t.Error("Resize after the end: no error")
			}
		})
	}
}

// TestTerminalResizeOutlastsAWriteBack: a resize that the command sets
// back to the size it read just before (readline does, as it prepares
// each line) is set again; the command then sees the new size.
func TestTerminalResizeOutlastsAWriteBack(t *testing.T) {
	// Long enough that the test's write-back below comes before the
	// look, however slow the machine.
	defer func(d time.Duration) { resizeRecheck = d }(resizeRecheck)
	resizeRecheck = time.Second
	in, input := io.Pipe()
	defer input.Close()
	term := NewTerminal(0, 0)
	s := newScreen()
	o := Options{Command: "echo ready; head -n 1 >/dev/null; stty size", Dir: t.TempDir(), Env: os.Environ(), Stdin: in,
		Terminal: term, OnChunk: s.add}
	ended := make(chan Result, 1)
	go func() {
		res, _ := run(t, t.Context(), o)
		ended <- res
	}()
	s.waitFor(t, `ready\r\n`)
	if err := term.Resize(40, 120); err != nil {
		t.Fatalf("Resize: %v", err)
	}
	windowSize := func() pty.Winsize {
		term.mu.Lock()
		defer term.mu.Unlock()
		ws, err := pty.GetsizeFull(term.master)
		if err != nil {
			t.Fatalf("window size: %v", err)
		}
		return *ws
	}
	term.mu.Lock()
	err := pty.Setsize(term.master, &pty.Winsize{Rows: DefaultRows, Cols: DefaultCols}) // readline's write-back
	term.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, 10*time.Second, "the window set to 40 x 120 again", func() bool {
		return windowSize() == pty.Winsize{Rows: 40, Cols: 120}
	})
	write(t, input, "\n")
	s.waitFor(t, `\r\n40 120\r\n$`)
	if res := testwait.Receive(t, ended); res.ExitCode != 0 {
		t.Errorf("exit %d, output %q", res.ExitCode, s.String())
	}
}

func write(t *testing.T, w io.Writer, s string) {
	t.Helper()
	if _, err := io.WriteString(w, s); err != nil {
		t.Fatalf("write %q: %v", s, err)
	}
}

// TestStdinThatStaysOpenEndsWithTheCommand: a command given a standard
// input that is still open when it exits (a job's, written by a client)
// ends its run: the copy into it is not waited for.
func TestStdinThatStaysOpenEndsWithTheCommand(t *testing.T) {
	for name, sb := range sandboxes(t) {
		t.Run(name, func(t *testing.T) {
			ws := t.TempDir()
			in, input := io.Pipe()
			defer input.Close()
			type ended struct {
				res Result
				out string
			}
			done := make(chan ended, 1)
			go func() {
				res, out := run(t, t.Context(), Options{Command: "head -n 1", Dir: ws, Env: os.Environ(), Stdin: in,
					Sandbox: sb, Confine: sandbox.Run{Workspace: ws}, Grace: 500 * time.Millisecond})
				done <- ended{res, text(t, out)}
			}()
			write(t, input, "one line\n")
			if got := testwait.Receive(t, done); got.res.ExitCode != 0 || got.out != "one line\n" {
				t.Errorf("exit %d, output %q; want 0 and the line", got.res.ExitCode, got.out)
			}
		})
	}
}
