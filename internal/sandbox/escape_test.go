package sandbox

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// The escape suite: each case runs a hostile command confined and checks
// the outcome from outside.

func TestWritesOutsideTheWorkspaceLeaveNothing(t *testing.T) {
	for _, mode := range ways {
		t.Run(mode, func(t *testing.T) {
			base := onDisk(t)
			ws, home, outside := filepath.Join(base, "ws"), filepath.Join(base, "home"), filepath.Join(base, "outside")
			for _, d := range []string{ws, home, outside} {
				_ = os.Mkdir(d, 0o755)
			}
			s := newTest(t, Config{Mode: mode}, home)
			o := runIn(t, s, Run{Workspace: ws}, fmt.Sprintf(
				`echo a > ../x; echo b > %s/x; echo c > %s/x; echo d > inside; echo e > /tmp/t && cat /tmp/t`, home, outside))
			for _, p := range []string{filepath.Join(base, "x"), filepath.Join(home, "x"), filepath.Join(outside, "x")} {
				if _, err := os.Stat(p); err == nil {
					t.Errorf("%s was written from inside the sandbox", p)
				}
			}
			if _, err := os.Stat(filepath.Join(ws, "inside")); err != nil {
				t.Errorf("the workspace is not writable: %v\n%s", err, o.out)
			}
			if !contains(o.out, "e") {
				t.Errorf("the private /tmp is not writable:\n%s", o.out)
			}
		})
	}
}

func TestCredentialsAndHiddenFilesCannotBeRead(t *testing.T) {
	for _, where := range []string{"workspace on disk", "workspace under /tmp"} {
		for _, mode := range ways {
			t.Run(mode+"/"+where, func(t *testing.T) { hiddenCase(t, mode, where == "workspace under /tmp") })
		}
	}
}

// hiddenCase tries to read credentials and a hidden workspace file; the
// workspace may live under /tmp, which bubblewrap replaces but binds the
// workspace back into.
func hiddenCase(t *testing.T, mode string, underTmp bool) {
	base := onDisk(t)
	ws, home := filepath.Join(base, "ws"), filepath.Join(base, "home")
	if underTmp {
		ws = t.TempDir()
	}
	writeFile(t, home, ".ssh/id_ed25519", "SSH-SECRET-KEY")
	writeFile(t, home, ".netrc", "NETRC-SECRET")
	secret := writeFile(t, ws, "conf/.env", "ENV-SECRET")
	writeFile(t, ws, "conf/public.txt", "public")
	s := newTest(t, Config{Mode: mode}, home)
	script := fmt.Sprintf(`cat %[1]s/.ssh/id_ed25519 %[1]s/.netrc; cat conf/*; grep -r SECRET . ; `+
		`find . -type f -exec cat {} \; ; python3 -c 'print(open("conf/.env").read())'; `+
		`command -v rg >/dev/null && rg --no-ignore --hidden SECRET; cat %[1]s/.ssh/*; true`, home)
	o := runIn(t, s, Run{Workspace: ws, Hide: []string{secret}}, script)
	for _, leak := range []string{"SSH-SECRET-KEY", "NETRC-SECRET", "ENV-SECRET"} {
		if contains(o.out, leak) {
			t.Errorf("%s leaked:\n%s", leak, o.out)
		}
	}
	if !contains(o.out, "public") {
		t.Errorf("an ordinary workspace file could not be read:\n%s", o.out)
	}
}

func TestNetworkIsOffUnlessAllowed(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_, _ = c.Write([]byte("HTTP/1.0 200 OK\r\nContent-Length: 5\r\n\r\nhello"))
			_ = c.Close()
		}
	}()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	script := "curl -sS --max-time 5 http://127.0.0.1:" + port + "/"
	for _, mode := range ways {
		for _, network := range []string{"off", "on"} {
			t.Run(mode+"/"+network, func(t *testing.T) {
				s := newTest(t, Config{Mode: mode, Network: network}, "")
				o := runIn(t, s, Run{Workspace: t.TempDir()}, script)
				if reached := contains(o.out, "hello"); reached != (network == "on") {
					t.Errorf("network %s: reached the listener = %v\n%s", network, reached, o.out)
				}
			})
		}
	}
}

// TestOutsideProcessesCannotBeSignalled checks that a confined command
// cannot signal a process outside the sandbox (toolgate, say), with the
// network off or on: bubblewrap's PID namespace does not show it, and in
// Landlock-only mode, which has no PID namespace, Landlock's signal scope
// refuses it. An unconfined kill -0 of the same process succeeds.
func TestOutsideProcessesCannotBeSignalled(t *testing.T) {
	victim := exec.Command("sleep", "60")
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = victim.Process.Kill(); _ = victim.Wait() }()
	script := "kill -0 " + strconv.Itoa(victim.Process.Pid) + " && echo SIGNALLED"
	if out, _ := exec.Command("bash", "-c", script).CombinedOutput(); !contains(string(out), "SIGNALLED") {
		t.Fatalf("the unconfined control could not signal the process: %s", out)
	}
	for _, mode := range ways {
		for _, network := range []string{"off", "on"} {
			t.Run(mode+"/"+network, func(t *testing.T) {
				s := newTest(t, Config{Mode: mode, Network: network}, "")
				if s.Mode() == InForceLandlock && s.landlock < 6 {
					t.Skipf("Landlock ABI %d has no signal scope", s.landlock)
				}
				o := runIn(t, s, Run{Workspace: t.TempDir()}, script)
				if contains(o.out, "SIGNALLED") {
					t.Errorf("the confined command signalled a process outside the sandbox:\n%s", o.out)
				}
			})
		}
	}
	if victim.ProcessState != nil {
		t.Fatal("the process outside ended: a confined command killed it")
	}
}
