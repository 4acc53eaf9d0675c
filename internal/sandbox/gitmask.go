package sandbox

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// A workspace file the ignore rules exclude is masked in the bubblewrap
// sandbox. Masked with /dev/null, a tracked one looked changed to git
// inside: git status listed it as modified (its size, type and inode all
// differ from what the index recorded, so git read it and found it
// empty). So such a file is masked instead with a stand-in: a sparse file
// of zeros (no disk used) with the masked file's size, modification time
// and permissions, made once per such triple in a directory of toolgate's
// own and bound read-only over the file. Its content is still none of the
// file's. Its inode, device and change time still differ, which git checks
// by default; git is told not to look at those (core.checkStat=minimal
// and core.trustCtime=false, passed in the environment, so the user's
// repository and config are left alone), and then finds size and
// modification time as recorded and the file unchanged.
//
// What this shows inside is the file's size and modification time, which
// /dev/null hid; its content stays hidden. A file changed within the same
// second as the index was written is checked by content (git's "racily
// clean" rule) and shows as modified inside, as before (git on the host
// that compares the content and rewrites the index ends that: the file is
// no longer later than the index). An excluded directory is masked by its
// skeleton of stand-ins (gitmask_dir.go).

// maskFor is what to bind over a masked file h: a stand-in for a regular
// file inside the workspace ws, /dev/null otherwise (credential files
// outside keep showing nothing, not even a size) or when no stand-in can
// be made.
func maskFor(ws, h string, st fs.FileInfo) string {
	if !within(h, ws) || !st.Mode().IsRegular() {
		return "/dev/null"
	}
	p, err := standIn(st)
	if err != nil {
		return "/dev/null"
	}
	return p
}

// standInDir is the directory of the stand-ins, made 0700 for this user.
func standInDir() (string, error) {
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("toolgate-masks-%d", os.Getuid()))
	if err := os.Mkdir(dir, 0o700); err != nil && !os.IsExist(err) {
		return "", err
	}
	// Someone else's directory (or a link) in a shared /tmp is not used:
	// its owner could change a stand-in under a later run.
	st, err := os.Lstat(dir)
	if err != nil {
		return "", err
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !st.IsDir() || !ok || int(sys.Uid) != os.Getuid() || st.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("sandbox: %s is not this user's private directory", dir)
	}
	return dir, nil
}

// standIn returns a file of zeros with st's size, modification time and
// permissions, making it when it does not exist yet. It is made under a
// temporary name and renamed, so a run never binds a half-made one.
func standIn(st fs.FileInfo) (string, error) {
	dir, err := standInDir()
	if err != nil {
		return "", err
	}
	mtime := st.ModTime()
	perm := st.Mode().Perm()
	p := filepath.Join(dir, fmt.Sprintf("%d-%d-%o", st.Size(), mtime.UnixNano(), perm))
	if have, err := os.Lstat(p); err == nil && have.Mode().IsRegular() && have.Size() == st.Size() && have.ModTime().Equal(mtime) {
		return p, nil
	}
	f, err := os.CreateTemp(dir, "new-")
	if err != nil {
		return "", err
	}
	tmp := f.Name()
	err = f.Truncate(st.Size())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, perm)
	}
	if err == nil {
		err = os.Chtimes(tmp, mtime, mtime)
	}
	if err == nil {
		err = os.Rename(tmp, p)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return "", err
	}
	return p, nil
}

// gitStatEnv adds to env the git settings under which a stand-in passes
// git's check of the index: core.checkStat=minimal (size and whole-second
// modification time, not inode, device, owner) and core.trustCtime=false.
// They are appended to configuration given in the environment already
// (GIT_CONFIG_COUNT), never replacing it.
func gitStatEnv(env []string) []string {
	n := 0
	out := make([]string, 0, len(env)+5)
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GIT_CONFIG_COUNT="); ok {
			if c, err := strconv.Atoi(v); err == nil && c > 0 {
				n = c
			}
			continue
		}
		out = append(out, kv)
	}
	for i, kv := range [][2]string{{"core.checkStat", "minimal"}, {"core.trustCtime", "false"}} {
		out = append(out, fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", n+i, kv[0]), fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", n+i, kv[1]))
	}
	return append(out, fmt.Sprintf("GIT_CONFIG_COUNT=%d", n+2))
}
