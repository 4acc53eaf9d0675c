package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSymlinkBesideAHiddenPathGrantsNothingOutside is the attack of a
// symlink to $HOME placed in a workspace directory that also holds an
// ignored file: in Landlock-only mode the grants made around the hidden
// file were made on the siblings' paths, and a grant on "h" followed the
// link and opened $HOME, masked credentials included, to reads and
// writes. Through the link the command must read none of the masked
// secrets and change no file outside the workspace.
func TestSymlinkBesideAHiddenPathGrantsNothingOutside(t *testing.T) {
	for _, mode := range ways {
		t.Run(mode, func(t *testing.T) {
			base := onDisk(t)
			ws, home, outside := filepath.Join(base, "ws"), filepath.Join(base, "home"), filepath.Join(base, "outside")
			writeFile(t, home, ".ssh/id_rsa", "SSH-PRIVATE-KEY")
			keys := writeFile(t, home, ".ssh/authorized_keys", "ssh-ed25519 AAAA owner")
			writeFile(t, home, ".aws/credentials", "AWS-SECRET-KEY")
			bashrc := writeFile(t, home, ".bashrc", "# owner's bashrc")
			writeFile(t, outside, "denied/secret", "DENY-READ-SECRET")
			plain := writeFile(t, outside, "file", "outside file")
			ignored := writeFile(t, ws, ".env", "ENV-SECRET")
			for link, target := range map[string]string{"h": home, "o": outside, "sub/h": home} {
				if err := os.MkdirAll(filepath.Dir(filepath.Join(ws, link)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(target, filepath.Join(ws, link)); err != nil {
					t.Fatal(err)
				}
			}
			writeFile(t, ws, "sub/.env", "SUB-ENV-SECRET")
			writeFile(t, ws, "pub/public", "PUBLIC-")
			if err := os.Symlink("pub", filepath.Join(ws, "w")); err != nil {
				t.Fatal(err)
			}
			s := newTest(t, Config{Mode: mode, DenyRead: []string{filepath.Join(outside, "denied")}}, home)
			script := `for l in h sub/h; do cat $l/.ssh/id_rsa $l/.aws/credentials; ` +
				`echo INJECTED >> $l/.ssh/authorized_keys; echo INJECTED >> $l/.bashrc; done; ` +
				`cat o/denied/secret; echo INJECTED >> o/file; cat .env sub/.env; echo WRITABLE > w/mine; cat w/public pub/mine; true`
			o := runIn(t, s, Run{Workspace: ws, Hide: []string{ignored, filepath.Join(ws, "sub/.env")}}, script)
			for _, leak := range []string{"SSH-PRIVATE-KEY", "AWS-SECRET-KEY", "DENY-READ-SECRET", "ENV-SECRET"} {
				if contains(o.out, leak) {
					t.Errorf("%s leaked through a link:\n%s", leak, o.out)
				}
			}
			if !contains(o.out, "PUBLIC-WRITABLE") {
				t.Errorf("a link to a workspace directory does not work:\n%s", o.out)
			}
			for p, was := range map[string]string{keys: "ssh-ed25519 AAAA owner", bashrc: "# owner's bashrc", plain: "outside file"} {
				if b, err := os.ReadFile(p); err != nil || string(b) != was {
					t.Errorf("%s changed through a link: %q (%v)", p, b, err)
				}
			}
		})
	}
}

// TestPrivateTmpUnderALinkedTempDirIsWritable checks Landlock-only mode's
// private temporary directory when TMPDIR names it through a link: the
// helper grants nothing reached through a link, so the directory is
// granted by its real path, and the command can write there.
func TestPrivateTmpUnderALinkedTempDirIsWritable(t *testing.T) {
	base := onDisk(t)
	if err := os.Mkdir(filepath.Join(base, "real"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(base, "real"), filepath.Join(base, "link")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", filepath.Join(base, "link"))
	ws := filepath.Join(base, "ws")
	writeFile(t, ws, "a", "a")
	s := newTest(t, Config{Mode: ModeLandlock}, "")
	o := runIn(t, s, Run{Workspace: ws}, `echo TMP-WRITABLE > "$TMPDIR/f" && cat "$TMPDIR/f"`)
	if !contains(o.out, "TMP-WRITABLE") {
		t.Errorf("the private temporary directory is not writable:\n%s", o.out)
	}
}
