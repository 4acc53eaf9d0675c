package handlers

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/netguard"
	"github.com/toolgate/toolgate/internal/sandbox"
)

// browserSettings are browser_action's settings with defaults filled in.
type browserSettings struct {
	chromium      string // configured path, "" to search
	width, height int
	idle          time.Duration
	action        time.Duration
	guard         netguard.Guard
}

func newBrowserSettings(env tool.Env) browserSettings {
	w := webEnv(env)
	b := w.Browser
	return browserSettings{chromium: b.Chromium, width: b.Width, height: b.Height, idle: b.Idle, action: b.Action,
		guard: netguard.Guard{AllowPrivate: w.AllowPrivate, AllowAddresses: w.AllowAddresses}}
}

// findChromium returns the browser to run, or an error naming what to
// install.
func (s browserSettings) findChromium() (string, error) {
	candidates := []string{"chromium", "/usr/bin/chromium", "chromium-browser", "google-chrome"}
	if s.chromium != "" {
		candidates = []string{s.chromium}
	}
	for _, c := range candidates {
		if p, err := exec.LookPath(c); err == nil {
			return p, nil
		}
	}
	if s.chromium != "" {
		return "", tool.Errorf(api.ToolCodeUnavailable, "browser_action cannot start the browser: %s (policy.browser.chromium) was not found. Install Chromium (Debian: apt-get install chromium) or fix the path.", s.chromium)
	}
	return "", tool.Errorf(api.ToolCodeUnavailable, "browser_action needs Chromium, which is not installed on the server. Install it (Debian: apt-get install chromium) or set policy.browser.chromium to its path.")
}

// browser is one session's headless chromium: a tab, the console messages
// since the last action, and the guarded proxy every request goes through.
type browser struct {
	tab     context.Context
	cancel  func() // ends the tab, the browser and its context
	proxy   *netguard.Proxy
	dataDir string
	cmd     *exec.Cmd // set once chromium starts

	logMu   sync.Mutex
	logs    []string
	logSeen chan struct{} // signalled (non-blocking) on each message

	jail *sandbox.Prepared // the sandbox run chromium is in; nil outside one

	closeOnce sync.Once
}

// confineCmd makes chromedp's command start inside a prepared sandbox run:
// the sandbox's argv ends with the program, which chromedp's own argv
// (the program and its flags) replaces.
func confineCmd(cmd *exec.Cmd, jail *sandbox.Prepared) {
	argv := append(append([]string(nil), jail.Argv[:len(jail.Argv)-1]...), cmd.Args...)
	if p, err := exec.LookPath(argv[0]); err == nil {
		cmd.Path = p
	}
	cmd.ExtraFiles = append(cmd.ExtraFiles, jail.ExtraFiles...)
	// Where the sandbox gives the run a private temporary directory of
	// its own (Landlock alone), the profile and home go there.
	for _, kv := range jail.Env {
		if tmp, ok := strings.CutPrefix(kv, "TMPDIR="); ok {
			for i, a := range argv {
				if strings.HasPrefix(a, "--user-data-dir=") {
					argv[i] = "--user-data-dir=" + filepath.Join(tmp, "profile")
				}
			}
			cmd.Env = append(cmd.Env, kv, "HOME="+tmp)
		}
	}
	cmd.Args = argv
}

// startBrowser starts chromium with a fresh profile, every request through
// a guarded proxy, and collects the page's console. With a sandbox (the
// one commands run in) chromium runs inside it; it still reaches the
// network, but only through the proxy.
func startBrowser(s browserSettings, sb *sandbox.Sandbox, confine sandbox.Run) (*browser, error) {
	exe, err := s.findChromium()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "toolgate-browser-*")
	if err != nil {
		return nil, err
	}
	var jail *sandbox.Prepared
	if sb != nil {
		confine.Network = true // to the proxy on the loopback; the proxy applies the rules
		if jail, err = sb.Prepare([]string{exe}, nil, confine); err != nil {
			os.RemoveAll(dir)
			return nil, tool.Errorf(api.ToolCodeBrowserFailed, "The browser cannot run in the sandbox: %v", err)
		}
		if jail.Argv[len(jail.Argv)-1] == exe && len(jail.Argv) == 1 {
			jail = nil // the sandbox is off: chromium runs as it is
		}
	}
	b := &browser{dataDir: dir, logSeen: make(chan struct{}, 1), jail: jail}
	blocked := func(target string, err error) { b.addLog(fmt.Sprintf("[Blocked] %s: %v", target, err)) }
	if confine.Net != nil {
		// localhost is the session's: its dev servers, not toolgate's loopback.
		b.proxy, err = netguard.StartLocalProxy(s.guard, blocked, confine.Net.Dial)
	} else {
		b.proxy, err = netguard.StartProxy(s.guard, blocked)
	}
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	var cmdMu sync.Mutex
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.UserDataDir(dir),
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("mute-audio", true),
		// Every request, loopback included, goes through the proxy, which
		// applies the address rules after DNS.
		chromedp.ProxyServer("http://" + b.proxy.Addr()),
		chromedp.Flag("proxy-bypass-list", "<-loopback>"),
		chromedp.WindowSize(s.width, s.height),
		// The browser gets no environment of the server's: no token, no keys.
		chromedp.NoInheritEnv,
		chromedp.Env("HOME="+dir, "PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8"),
		chromedp.ModifyCmdFunc(func(cmd *exec.Cmd) {
			if jail != nil {
				confineCmd(cmd, jail)
			}
			cmd.SysProcAttr = browserAttr()
			cmdMu.Lock()
			b.cmd = cmd
			cmdMu.Unlock()
		}),
	}
	if jail != nil {
		// Inside the sandbox chromium is driven over a loopback WebSocket:
		// the pipe chromedp uses otherwise would take the file descriptors
		// the sandbox helper reads its cgroups from.
		opts = append(opts, remote.WebSocket)
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	tab, cancelTab := chromedp.NewContext(allocCtx)
	b.tab = tab
	b.cancel = func() {
		cancelTab()
		cancelAlloc()
		cmdMu.Lock()
		cmd := b.cmd
		cmdMu.Unlock()
		killGroup(cmd)
	}
	// The first action starts chromium and ties it to the context it runs
	// in, so it runs on the tab itself; a timer bounds it instead.
	slow := time.AfterFunc(s.action, b.close)
	err = chromedp.Do(tab, chromedp.EmulateViewport(int64(s.width), int64(s.height)))
	if !slow.Stop() && err == nil {
		err = fmt.Errorf("no answer within %s", s.action)
	}
	if err != nil {
		b.close()
		return nil, tool.Errorf(api.ToolCodeBrowserFailed, "Chromium (%s) did not start: %v", exe, err)
	}
	messages := chromedp.Console(tab)
	go b.collect(messages)
	return b, nil
}

// killGroup ends chromium's whole process group: renderers, the GPU and
// zygote processes included, whatever state the browser is in.
func killGroup(cmd *exec.Cmd) {
	if cmd == nil || cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}

// collect appends the page's console messages in Cline's format
// (BrowserSession.ts doAction): a log's text as it is, other types
// prefixed, uncaught exceptions as page errors.
func (b *browser) collect(messages func(func(chromedp.ConsoleMessage, error) bool)) {
	for m, err := range messages {
		if err != nil {
			return
		}
		switch {
		case m.IsException():
			b.addLog("[Page Error] " + m.Text)
		case m.Type == chromedp.ConsoleLog:
			b.addLog(m.Text)
		default:
			b.addLog("[" + string(m.Type) + "] " + m.Text)
		}
	}
}

func (b *browser) addLog(line string) {
	b.logMu.Lock()
	b.logs = append(b.logs, line)
	b.logMu.Unlock()
	select {
	case b.logSeen <- struct{}{}:
	default:
	}
}

// takeLogs returns the messages since the last call and forgets them.
func (b *browser) takeLogs() []string {
	b.logMu.Lock()
	defer b.logMu.Unlock()
	out := b.logs
	b.logs = nil
	return out
}

// settle waits until the console has been quiet for quiet, at most max,
// as Cline waits for log inactivity before its screenshot.
func (b *browser) settle(ctx context.Context, quiet, max time.Duration) {
	deadline := time.NewTimer(max)
	defer deadline.Stop()
	q := time.NewTimer(quiet)
	defer q.Stop()
	for {
		select {
		case <-b.logSeen:
			if !q.Stop() {
				select {
				case <-q.C:
				default:
				}
			}
			q.Reset(quiet)
		case <-q.C:
			return
		case <-deadline.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

// close ends the browser, its processes, its proxy and its profile.
func (b *browser) close() {
	b.closeOnce.Do(func() {
		b.cancel()
		b.proxy.Close()
		os.RemoveAll(b.dataDir)
		b.jail.Finish()
	})
}

// browsers holds at most one browser per session.
type browsers struct {
	settings browserSettings

	mu        sync.Mutex
	bySession map[string]*sessionBrowser
}

// sessionBrowser is a session's browser with its idle timer; mu makes its
// actions run one at a time.
type sessionBrowser struct {
	mu   sync.Mutex
	b    *browser
	idle *time.Timer
	stop func() bool // ends the watch on the session's end
}

func newBrowsers(s browserSettings) *browsers {
	return &browsers{settings: s, bySession: map[string]*sessionBrowser{}}
}

// launch replaces the session's browser with a new one, closed when the
// session ends or sits idle.
func (bs *browsers) launch(call *tool.Call) (*sessionBrowser, error) {
	bs.closeSession(call.SessionID)
	sbx, confine, err := call.Confinement("")
	if err != nil {
		return nil, tool.Errorf(api.ToolCodeBrowserFailed, "The browser cannot run in the sandbox: %v", err)
	}
	settings := bs.settings
	settings.guard.Rules = urlRules(call)
	b, err := startBrowser(settings, sbx, confine)
	if err != nil {
		return nil, err
	}
	sb := &sessionBrowser{b: b}
	id := call.SessionID
	sb.idle = time.AfterFunc(bs.settings.idle, func() { bs.closeIf(id, sb) })
	if call.SessionDone != nil {
		done := make(chan struct{})
		go func() {
			select {
			case <-call.SessionDone:
				bs.closeIf(id, sb)
			case <-done:
			}
		}()
		sb.stop = func() bool { close(done); return true }
	}
	bs.mu.Lock()
	bs.bySession[id] = sb
	bs.mu.Unlock()
	return sb, nil
}

// get returns the session's browser, or an error saying to launch one.
func (bs *browsers) get(sessionID string) (*sessionBrowser, error) {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	sb, ok := bs.bySession[sessionID]
	if !ok {
		return nil, tool.Errorf(api.ToolCodeBrowserFailed, "No browser is open in this session: start one with action \"launch\" and a url. (A browser closes after %s without actions.)", bs.settings.idle)
	}
	sb.idle.Reset(bs.settings.idle)
	return sb, nil
}

// closeSession closes the session's browser, reporting whether there was
// one.
func (bs *browsers) closeSession(sessionID string) bool {
	bs.mu.Lock()
	sb, ok := bs.bySession[sessionID]
	delete(bs.bySession, sessionID)
	bs.mu.Unlock()
	if ok {
		sb.shut()
	}
	return ok
}

// closeIf closes the session's browser if it is still sb (an idle timer
// or a session end racing a relaunch must not close the new one).
func (bs *browsers) closeIf(sessionID string, sb *sessionBrowser) {
	bs.mu.Lock()
	cur, ok := bs.bySession[sessionID]
	if ok && cur == sb {
		delete(bs.bySession, sessionID)
	}
	bs.mu.Unlock()
	if ok && cur == sb {
		sb.shut()
	}
}

func (sb *sessionBrowser) shut() {
	sb.idle.Stop()
	if sb.stop != nil {
		sb.stop()
	}
	sb.mu.Lock()
	defer sb.mu.Unlock()
	sb.b.close()
}

// errClosed is what an action finds when the browser went away under it.
var errClosed = errors.New("the browser was closed")
