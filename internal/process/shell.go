package process

// DefaultShell is the shell a command line runs in when Options names none.
const DefaultShell = "bash"

// loginScript runs a command line with the environment a login shell
// sets up, the way Codex's shell snapshot does: the shell ($0) starts
// again as a login shell with its input on /dev/null and its output
// discarded, reads the system's and the user's profile, then replaces
// itself (exec) with a plain shell that runs the line ($1) on the
// command's own input and output, kept meanwhile on descriptors 3 to 5.
// What the profile exports reaches the line; its messages, its aliases
// and functions and the login state itself (shopt login_shell) do not.
// Every step is an exec, so the line's shell is still the process
// started, and its exit or signal is the run's.
const loginScript = `exec "$0" -l -c 'exec "$0" -c "$1" <&5 >&3 2>&4 3>&- 4>&- 5<&-' "$0" "$1" 5<&0 3>&1 4>&2 </dev/null >/dev/null 2>&1`

// shellArgv is the command line that runs line in shell (DefaultShell
// when ""): shell -c line, its $0 the shell's name, or with login the
// login script, which names $0 itself.
func shellArgv(shell, line string, login bool) []string {
	if shell == "" {
		shell = DefaultShell
	}
	if login {
		return []string{shell, "-c", loginScript, shell, line}
	}
	return []string{shell, "-c", line}
}

// directArgs are the arguments after the program's path when the shell
// is started by its path rather than its name: $0 then comes from an
// argument, as shell -c's name argument after the line, so that it stays
// the name the shell was given.
func directArgs(argv []string) []string {
	if len(argv) == 3 {
		return []string{argv[1], argv[2], argv[0]}
	}
	return argv[1:] // the login script names $0 already
}
