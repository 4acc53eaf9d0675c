package shellcmd

// Risk is one reason a command line must not be auto-approved. Kind is one
// of the Kind constants and is stable; Detail quotes the offending source.
type Risk struct {
	Kind   string
	Detail string
}

// Risk kinds. Each names a construct whose effect cannot be read off the
// literal words of the command line.
const (
	KindControlChar    = "control_char"         // control, format or non-ASCII space character, or invalid UTF-8
	KindTooLong        = "too_long"             // input larger than MaxInput; not parsed
	KindParseError     = "parse_error"          // the parser rejected the input
	KindCommandSubst   = "command_substitution" // $(...)
	KindBackticks      = "backticks"            // `...`
	KindProcessSubst   = "process_substitution" // <(...) and >(...)
	KindRedirect       = "redirection"          // any redirection not in the allowed set (see allowedRedirect)
	KindHeredoc        = "heredoc"              // <<, <<- and <<<
	KindAssignment     = "assignment"           // VAR=x cmd, bare VAR=x, export/declare/local/readonly
	KindParamExpansion = "parameter_expansion"  // $X, ${X}, $1, $@ ...
	KindArithExpansion = "arithmetic_expansion" // $((...))
	KindDollarQuote    = "dollar_quote"         // $'...' and $"..." (escapes and translation)
	KindBraceExpansion = "brace_expansion"      // {a,b} and {1..3}: one word becomes several
	KindTilde          = "tilde"                // ~ expands to a home directory
	KindExtGlob        = "extglob"              // @(...), !(...) and friends
	KindSubshell       = "subshell"             // ( ... )
	KindBlock          = "block"                // { ...; }
	KindFunction       = "function"             // f() { ... }
	KindCompound       = "compound"             // if, loops, case, [[ ]], (( )), let, time, coproc, !
	KindBackground     = "background"           // cmd &
	KindEval           = "eval"                 // eval
	KindExec           = "exec"                 // exec
	KindSource         = "source"               // source and .
	KindShellCommand   = "shell_command"        // a shell run with a command string or script (bash -c, sh, watch)
	KindXargs          = "xargs"                // xargs runs its input as arguments of a command
	KindFindExec       = "find_exec"            // find -exec, -execdir, -ok, -okdir, -delete (and fd -x/-X)
	KindGitConfig      = "git_config"           // git -c, --config-env, --exec-path: config runs commands
	KindWrapper        = "wrapper"              // sudo, env, nice, timeout, nohup, command, builtin...
	KindShellState     = "shell_state"          // set, shopt, alias, trap, hash, enable, unset, read, printf -v...: change how later commands run
	KindCd             = "cd"                   // a cd whose target cannot be resolved statically
	KindGlob           = "glob"                 // *, ? or [ in an unquoted word: the argument is a pattern
	KindUnsupported    = "unsupported"          // any other syntax node
)

// informational lists the kinds that do not by themselves forbid
// auto-approval: a glob in `ls *.go` changes which files are named, not what
// the command does. Callers checking ignore rules must still treat such
// PathArgs as patterns.
var informational = map[string]bool{KindGlob: true}

// Blocking reports whether the risk forbids auto-approval. Only KindGlob is
// informational.
func (r Risk) Blocking() bool { return !informational[r.Kind] }
