package shellcmd

import (
	"path"
	"strings"
)

// readOnlyCheck reports whether a safe-listed command, given its arguments
// after the name, only reads.
type readOnlyCheck func(args []string) bool

func anyArgs([]string) bool { return true }

// forbid builds a check that refuses the listed options: long ones as
// --name or --name=value, short ones as a letter anywhere in a cluster (so
// `sort -to` is refused too: over-refusal is the safe side).
func forbid(short string, long ...string) readOnlyCheck {
	return func(args []string) bool {
		for _, arg := range args {
			if arg == "--" {
				return true
			}
			name, _, _ := strings.Cut(arg, "=")
			for _, l := range long {
				if name == l || arg == l {
					return false
				}
			}
			if short != "" && len(arg) > 1 && arg[0] == '-' && arg[1] != '-' && strings.ContainsAny(arg[1:], short) {
				return false
			}
		}
		return true
	}
}

// readOnly is the safe list. Everything absent from it, or refused by its
// check, needs approval. It is deliberately short: each entry was checked
// for options that write files (sort -o, tree -o, uniq's second operand),
// run programs (rg --pre, find -exec) or change state (date -s, git branch X).
var readOnly = map[string]readOnlyCheck{
	"ls": anyArgs, "cat": anyArgs, "head": anyArgs, "tail": anyArgs, "wc": anyArgs,
	"pwd": anyArgs, "echo": anyArgs, "which": anyArgs, "stat": anyArgs, "du": anyArgs,
	"df": anyArgs, "cut": anyArgs, "diff": anyArgs, "grep": anyArgs, "egrep": anyArgs,
	"fgrep": anyArgs, "basename": anyArgs, "dirname": anyArgs, "realpath": anyArgs,
	"readlink": anyArgs, "true": anyArgs, "false": anyArgs, "whoami": anyArgs,
	"nl": anyArgs, "tac": anyArgs, "comm": anyArgs, "cmp": anyArgs, "md5sum": anyArgs,
	"sha1sum": anyArgs, "sha256sum": anyArgs, "sha512sum": anyArgs, "od": anyArgs,
	"type": anyArgs, "tr": anyArgs, "column": anyArgs, "paste": anyArgs,
	"file":    forbid("C", "--compile"),
	"sort":    forbid("o", "--output", "--compress-program"),
	"tree":    forbid("oR"),
	"rg":      forbid("", "--pre", "--pre-glob", "--hostname-bin"),
	"find":    findReadOnly,
	"uniq":    uniqReadOnly,
	"date":    dateReadOnly,
	"git":     gitReadOnly,
	"go":      goReadOnly,
	"fd":      forbid("xX", "--exec", "--exec-batch"),
	"command": func(args []string) bool { return hasShortFlag(args, "vV") },
}

// ReadOnly reports whether the line may run without approval and alongside
// other tools: it has commands, no blocking risk, and every command is on
// the safe list with arguments that only read.
func (a Analysis) ReadOnly() bool {
	if len(a.Commands) == 0 || a.HasRisk() {
		return false
	}
	for _, c := range a.Commands {
		if !c.ReadOnly() {
			return false
		}
	}
	return true
}

// ReadOnly reports whether the command alone is on the safe list with
// arguments that only read; the line's risks are Analysis.ReadOnly's.
func (c SimpleCommand) ReadOnly() bool {
	if len(c.Args) == 0 {
		return false
	}
	check, ok := readOnly[c.Args[0]]
	return ok && check(c.Args[1:])
}

// HasRisk reports whether any risk forbids auto-approval.
func (a Analysis) HasRisk() bool {
	for _, r := range a.Risks {
		if r.Blocking() {
			return true
		}
	}
	return false
}

func findReadOnly(args []string) bool {
	for _, arg := range args {
		switch arg {
		case "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls":
			return false
		}
	}
	return true
}

// uniqReadOnly refuses a second operand, which uniq writes its output to.
func uniqReadOnly(args []string) bool {
	operands := 0
	opts := true
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case opts && arg == "--":
			opts = false
		case opts && strings.HasPrefix(arg, "-") && arg != "-":
			if arg == "-f" || arg == "-s" || arg == "-w" {
				i++ // value in the next word
			}
		default:
			operands++
		}
	}
	return operands <= 1
}

// dateReadOnly refuses -s/--set and an operand that is not a +FORMAT
// (`date MMDDhhmm` sets the clock).
func dateReadOnly(args []string) bool {
	for _, arg := range args {
		if !strings.HasPrefix(arg, "-") && !strings.HasPrefix(arg, "+") {
			return false
		}
	}
	return forbid("s", "--set")(args)
}

func goReadOnly(args []string) bool {
	if len(args) == 0 {
		return false
	}
	rest := args[1:]
	switch args[0] {
	case "version", "help", "doc":
		return true
	case "env":
		return forbid("wu")(rest)
	case "list":
		return forbid("", "-toolexec", "-exec", "-export", "-o", "-overlay")(rest)
	case "vet":
		return forbid("", "-vettool", "-toolexec", "-exec", "-overlay")(rest)
	}
	return false
}

// gitReadOnly accepts listing subcommands only, with no global option that
// could redirect git to another repository or configuration.
func gitReadOnly(args []string) bool {
	all := append([]string{"git"}, args...)
	i, plain := gitSubcommand(all)
	if !plain || i >= len(all) {
		return false
	}
	sub, rest := all[i], all[i+1:]
	switch sub {
	case "status", "rev-parse", "ls-files", "blame", "describe", "ls-tree":
		return forbid("", "--output")(rest)
	case "log", "diff", "show", "shortlog":
		return forbid("", "--output", "--ext-diff", "--textconv")(rest)
	case "branch":
		return gitBranchListing(rest)
	}
	return false
}

// gitBranchListing accepts `git branch` only in its listing forms: a
// positional argument creates a branch unless --list is given.
func gitBranchListing(args []string) bool {
	list := false
	operands := 0
	for _, arg := range args {
		name, _, _ := strings.Cut(arg, "=")
		switch name {
		case "-l", "--list":
			list = true
		case "-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose", "--show-current",
			"--color", "--no-color", "--column", "--no-column", "--sort", "--format",
			"--contains", "--no-contains", "--merged", "--no-merged", "--points-at",
			"-i", "--ignore-case", "--omit-empty", "--abbrev", "--no-abbrev":
		default:
			if strings.HasPrefix(arg, "-") {
				return false
			}
			operands++
		}
	}
	return operands == 0 || list
}

// commandName is the name a command is known by for LongRunning: the base
// of a path such as ./gradlew.
func commandName(arg string) string { return path.Base(arg) }
