package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMachinesTmpIsHidden: a command reads no file of the machine's
// temporary directory, in either mode (bubblewrap gives it a private
// /tmp; Landlock-only mode masks it: names stay listable there, as in
// every masked directory, since Landlock's listing right on / reaches
// below it), while its own TMPDIR and a workspace below /tmp work as
// before.
func TestMachinesTmpIsHidden(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode, func(t *testing.T) {
			s := newTest(t, Config{Mode: mode}, "")
			secret, err := os.CreateTemp("", "host-tmp-")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = os.Remove(secret.Name()) })
			if _, err := secret.WriteString("HOST-TMP-SECRET\n"); err != nil {
				t.Fatal(err)
			}
			_ = secret.Close()
			ws := filepath.Join(t.TempDir(), "ws") // below the machine's /tmp
			writeFile(t, ws, "a", "WORKSPACE-FILE")
			o := runIn(t, s, Run{Workspace: ws}, `cat `+secret.Name()+` 2>/dev/null; `+
				`echo OWN-TMP > "${TMPDIR:-/tmp}/own" && cat "${TMPDIR:-/tmp}/own"; cat a; true`)
			if contains(o.out, "HOST-TMP-SECRET") {
				t.Errorf("the machine's temporary directory was read:\n%s", o.out)
			}
			if !contains(o.out, "OWN-TMP") || !contains(o.out, "WORKSPACE-FILE") {
				t.Errorf("the run's own TMPDIR or its workspace below /tmp did not work:\n%s", o.out)
			}
		})
	}
}
