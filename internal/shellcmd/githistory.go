package shellcmd

import (
	"path"
	"strings"
)

// The sandbox masks ignored files in the working tree, but their past (and
// staged) versions stay readable inside .git, where git needs them. A
// command that can print stored file contents must therefore be judged by
// whether the ignore rules exclude a file the repository holds; GitHistory
// finds such commands.

// gitNoContents are the git subcommands that never print or write out a
// stored version of a file: they list names, ids or messages, or record
// the working tree. Everything else (log, show, diff, cat-file, grep,
// blame, archive, clone, checkout, stash, an alias ...) may.
var gitNoContents = map[string]bool{
	"status": true, "add": true, "commit": true, "init": true, "branch": true, "tag": true,
	"rev-parse": true, "config": true, "remote": true, "ls-files": true, "ls-tree": true,
	"rm": true, "mv": true, "check-ignore": true, "describe": true, "shortlog": true,
	"count-objects": true, "fetch": true, "push": true, "version": true, "help": true,
	"var": true, "symbolic-ref": true, "show-ref": true, "for-each-ref": true,
	"merge-base": true, "name-rev": true, "rev-list": true, "check-ref-format": true,
}

// gitShowsDiff are the options with which status, add and commit print
// or edit diffs of staged contents.
var gitShowsDiff = map[string]bool{
	"--verbose": true, "--patch": true, "--interactive": true, "--edit": true,
	"-v": true, "-p": true, "-i": true, "-e": true,
}

// historyPrograms read a repository's history besides git itself.
var historyPrograms = map[string]bool{"tig": true, "gitk": true, "git-gui": true, "lazygit": true}

// GitHistory returns the first command that may print the stored contents
// of repository files (git log -p, git show, git diff, git cat-file, git
// grep, git blame, git archive ...), and false when there is none. A
// command whose name is not a literal word, git with global options that
// may point it elsewhere, and a line that could not be parsed count: the
// answer fails closed. For an unparsed line the command's Text is the
// parser's complaint and its Dir is unknown ("/?").
func (a Analysis) GitHistory() (SimpleCommand, bool) {
	for _, c := range a.Commands {
		if len(c.Args) == 0 {
			continue
		}
		name := c.Args[0]
		if !literalName(name) || historyPrograms[path.Base(name)] ||
			path.Base(name) == "git" && gitMayShowContents(c.Args) {
			return c, true
		}
	}
	for _, r := range a.Risks {
		if r.Kind == KindParseError || r.Kind == KindTooLong {
			return SimpleCommand{Text: r.Detail, Dir: unknownDir}, true
		}
	}
	return SimpleCommand{}, false
}

// literalName reports whether a command word names one program: a word
// holding an expansion keeps its raw source, so it shows $, ` or a glob.
func literalName(w string) bool {
	return w != "" && !strings.ContainsAny(w, "$`*?[{~")
}

// gitMayShowContents judges one git command line (args[0] is git).
func gitMayShowContents(args []string) bool {
	i, plain := gitSubcommand(args)
	if i >= len(args) {
		return false // git alone, or options only: prints help
	}
	if !plain {
		return true // -C, --git-dir, -c ...: another repository or configuration
	}
	sub := args[i]
	if !gitNoContents[sub] {
		return true
	}
	if sub == "status" || sub == "add" || sub == "commit" {
		for _, arg := range args[i+1:] {
			if arg == "--" {
				break
			}
			if gitShowsDiff[arg] || shortCluster(arg, "vpie") {
				return true
			}
		}
	}
	return false
}

// shortCluster reports whether arg is a cluster of short options (-av)
// holding one of the letters.
func shortCluster(arg, letters string) bool {
	if len(arg) < 3 || arg[0] != '-' || arg[1] == '-' {
		return false
	}
	return strings.ContainsAny(arg[1:], letters)
}
