package policy

import (
	"bytes"
	"fmt"
	"path"
	"strings"

	"github.com/toolgate/toolgate/internal/ignore"
	"github.com/toolgate/toolgate/internal/shellcmd"
)

// "Read-only" git commands still run programs the repository's own
// configuration names: git status starts core.fsmonitor, git diff runs
// diff.external and textconv drivers, a clean filter runs when a modified
// file is compared, and an include can pull such keys from any file in
// the workspace. A model that can write .git/config (or a cloned
// repository that ships one) would thus run code without approval. So a
// command line that runs git asks whenever the repository's own
// configuration (its local and worktree files, with their includes) sets
// a key that starts a program. The user's global and system files are
// the user's choice and are not judged.

// gitConfigAsk returns the approval reason when a git command of the line
// would run a program named in the repository's configuration, or when
// that configuration cannot be read.
func (p *Policy) gitConfigAsk(s *Subject) (string, bool) {
	if s.Command == nil || p.workspace == nil {
		return "", false
	}
	for _, cmd := range s.Command.Commands {
		if !runsGit(cmd) {
			continue
		}
		prefix := fmt.Sprintf("approval required: %q runs git, which starts programs the repository's configuration names", cmd.Text)
		dir, known := gitDir(p.workspace.Dir, cmd.Dir)
		if !known {
			return prefix + ", and where it runs cannot be known beforehand", true
		}
		key, err := repoProgramKey(dir)
		switch {
		case err != nil:
			return fmt.Sprintf("%s, and that configuration could not be checked (%v)", prefix, err), true
		case key != "":
			return fmt.Sprintf("%s; it sets %s", prefix, key), true
		}
	}
	return "", false
}

// runsGit reports whether a simple command runs git: git itself, and the
// go commands that stamp version control information by running it.
func runsGit(cmd shellcmd.SimpleCommand) bool {
	if len(cmd.Args) == 0 {
		return false
	}
	switch path.Base(cmd.Args[0]) {
	case "git":
		return true
	case "go":
		return len(cmd.Args) > 1 && (cmd.Args[1] == "list" || cmd.Args[1] == "vet")
	}
	return false
}

// repoProgramKey returns the first key of the repository's own
// configuration around dir that names a program, "" when there is none
// or dir is in no repository.
func repoProgramKey(dir string) (string, error) {
	out, err := runGit(dir, "config", "--list", "--show-scope", "--includes", "-z")
	if err == errNoRepository {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	fields := bytes.Split(out, []byte{0})
	for i := 0; i+1 < len(fields); i += 2 {
		scope := string(fields[i])
		key, value, _ := strings.Cut(string(fields[i+1]), "\n")
		if scope != "local" && scope != "worktree" {
			continue
		}
		if gitKeyRunsProgram(key, value) {
			return key, nil
		}
	}
	return "", nil
}

// programKeyNames are the last parts of configuration keys whose value is
// a program git (or a program it starts) may run: core.fsmonitor,
// core.sshCommand, core.pager, core.editor, core.askPass, core.gitProxy,
// core.hooksPath, diff.external, diff.<driver>.command and .textconv,
// filter.<driver>.clean, .smudge and .process, merge.<driver>.driver,
// gpg.program, credential.helper, interactive.diffFilter, sequence.editor,
// mergetool/difftool cmd, remote.<name>.uploadpack and .receivepack,
// uploadpack.packObjectsHook. core.worktree points git at files outside.
var programKeyNames = map[string]bool{
	"fsmonitor": true, "sshcommand": true, "pager": true, "editor": true, "askpass": true,
	"gitproxy": true, "hookspath": true, "external": true, "command": true, "textconv": true,
	"clean": true, "smudge": true, "process": true, "driver": true, "program": true,
	"helper": true, "difffilter": true, "cmd": true, "uploadpack": true, "receivepack": true,
	"packobjectshook": true, "alternaterefscommand": true, "worktree": true,
}

// gitKeyRunsProgram reports whether one configuration entry may make git
// start a program. Keys are listed lower-cased but for subsection names.
// A boolean core.fsmonitor selects git's own daemon, not a program.
func gitKeyRunsProgram(key, value string) bool {
	section, rest, _ := strings.Cut(strings.ToLower(key), ".")
	last := rest
	if i := strings.LastIndexByte(rest, '.'); i >= 0 {
		last = rest[i+1:]
	}
	switch {
	case section == "pager":
		return !isGitBool(value) // pager.<command> = a pager program
	case section == "core" && last == "fsmonitor":
		return !isGitBool(value)
	case section == "alias":
		return false // an alias cannot replace a builtin command
	}
	return programKeyNames[last]
}

// isGitBool reports whether a value is one of git's boolean spellings.
func isGitBool(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "true", "false", "yes", "no", "on", "off", "1", "0":
		return true
	}
	return false
}

// RepositoryAsks turns a verdict into an ask, whatever allowed it, when a
// command may print stored versions of ignored files (gitHistoryAsk) or
// start a program the repository's configuration names (gitConfigAsk).
func (p *Policy) RepositoryAsks(sub *Subject, m *ignore.Matcher, v Verdict) Verdict {
	for _, check := range []func() (string, bool){
		func() (string, bool) { return p.gitHistoryAsk(sub, m) },
		func() (string, bool) { return p.gitConfigAsk(sub) },
	} {
		if reason, ask := check(); ask {
			if v.Decision == Ask {
				reason = v.Reason + "; also " + strings.TrimPrefix(reason, "approval required: ")
			}
			v = Verdict{Decision: Ask, Reason: reason}
		}
	}
	return v
}
