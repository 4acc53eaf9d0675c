package process

// DefaultShell is the shell a command line runs in when Options names none.
const DefaultShell = "bash"

// shellArgv is the command line that runs line in shell (DefaultShell
// when ""): shell -c line, its $0 the shell's name; a login shell
// (shell -l -c line) reads the login profile first, as LoginEnv's does.
func shellArgv(shell, line string, login bool) []string {
	if shell == "" {
		shell = DefaultShell
	}
	if login {
		return []string{shell, "-l", "-c", line}
	}
	return []string{shell, "-c", line}
}

// directArgs are the arguments after the program's path when the shell
// is started by its path rather than its name: $0 then comes from an
// argument, as shell -c's name argument after the line, so that it stays
// the name the shell was given.
func directArgs(argv []string) []string {
	return append(argv[1:len(argv):len(argv)], argv[0])
}
