package policy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/toolgate/toolgate/internal/ignore"
)

// The sandbox hides ignored files in the working tree, not their stored
// versions inside .git, which git itself needs. A command that can print
// stored contents (git log -p, git show, git diff, git cat-file, git grep
// ...) therefore asks for approval whenever the ignore rules exclude a
// file the repository holds: one tracked now, or one deleted in its
// history. No allow rule, and not allow_all, approves it silently.

// gitListTimeout bounds each git listing; a repository too large to list
// in time is treated as holding an ignored file.
const gitListTimeout = 10 * time.Second

// gitHistoryAsk returns the approval reason when the command line may
// print stored versions of a file the ignore rules exclude.
func (p *Policy) gitHistoryAsk(s *Subject, m *ignore.Matcher) (string, bool) {
	if s.Command == nil || p.workspace == nil || m == nil || m.Len() == 0 {
		return "", false
	}
	cmd, ok := s.Command.GitHistory()
	if !ok {
		return "", false
	}
	prefix := fmt.Sprintf("approval required: %q can print versions of files stored in the repository, which the sandbox cannot hide", cmd.Text)
	dir, known := gitDir(p.workspace.Dir, cmd.Dir)
	if !known {
		return prefix + ", and where it runs cannot be known beforehand", true
	}
	hit, err := trackedIgnored(p.workspace.Dir, dir, m)
	switch {
	case err != nil:
		return fmt.Sprintf("%s, and whether the ignore rules exclude a file the repository holds could not be checked (%v)", prefix, err), true
	case hit != "":
		return fmt.Sprintf("%s; the ignore rules exclude %s, which the repository holds", prefix, hit), true
	}
	return "", false
}

// gitDir is the absolute directory a command runs in, from its
// workspace-relative Dir; known is false when that directory is unknown
// or outside the workspace.
func gitDir(ws, rel string) (string, bool) {
	switch {
	case rel == "":
		return ws, true
	case path.IsAbs(rel), strings.HasPrefix(rel, "/?"):
		return "", false
	}
	return filepath.Join(ws, filepath.FromSlash(rel)), true
}

// trackedIgnored returns a workspace path that m excludes and that the
// repository around dir tracks or once held, "" for none (or no
// repository there). The whole repository is listed: git log -p run in a
// subdirectory prints every file's history.
func trackedIgnored(ws, dir string, m *ignore.Matcher) (string, error) {
	top, err := runGit(dir, "rev-parse", "--show-toplevel")
	if errors.Is(err, errNoRepository) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	root := strings.TrimSpace(string(top))
	if real, err := filepath.EvalSymlinks(ws); err == nil {
		ws = real
	}
	listings := [][]string{
		{"ls-files", "-z", "--cached"},
		// Deleted files stay in history; renames are split into a
		// deletion and an addition so that the old name is listed.
		{"log", "--all", "--no-renames", "--diff-filter=D", "--name-only", "--format=", "-z"},
	}
	for _, args := range listings {
		out, err := runGit(root, args...)
		if err != nil {
			return "", err
		}
		for _, p := range bytes.Split(out, []byte{0}) {
			name := strings.TrimLeft(string(p), "\n")
			if name == "" {
				continue
			}
			rel, err := filepath.Rel(ws, filepath.Join(root, name))
			if err != nil || !filepath.IsLocal(rel) {
				continue // outside the workspace: no ignore rule covers it
			}
			// The ignore file covering itself guards the rules, not a
			// secret: a committed .clineignore is no reason to ask.
			if r, hit := m.Match(filepath.ToSlash(rel), false); hit && !r.Self() {
				return filepath.ToSlash(rel), nil
			}
		}
	}
	return "", nil
}

// errNoRepository is git's answer outside a repository.
var errNoRepository = errors.New("not a git repository")

// runGit runs a listing git command in dir. The repository's own
// configuration cannot start programs for these listings; the
// environment's GIT_ variables are dropped so that only dir decides
// which repository is read.
func runGit(dir string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), gitListTimeout)
	defer cancel()
	full := append([]string{"-c", "core.fsmonitor=false", "-c", "safe.directory=*", "--no-optional-locks"}, args...)
	cmd := exec.CommandContext(ctx, "git", full...)
	cmd.Dir = dir
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "GIT_") {
			cmd.Env = append(cmd.Env, e)
		}
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	switch {
	case errors.Is(err, exec.ErrNotFound):
		return nil, errNoRepository // no git: nothing can read a repository either
	case ctx.Err() != nil:
		return nil, fmt.Errorf("git %s took longer than %s", args[0], gitListTimeout)
	case err != nil && strings.Contains(stderr.String(), "not a git repository"):
		return nil, errNoRepository
	case err != nil:
		return nil, fmt.Errorf("git %s: %v: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}
