package codex

import "strings"

// execShell is the shell execute_command runs an exec_command in, from
// Codex's shell parameter as Codex reads it: nil is the user's shell
// ("": bash); otherwise Codex takes the kind of shell the name or path
// names (its file name, extensions dropped: /usr/bin/bash and bash.exe
// are bash) and runs that kind of shell as it finds it installed,
// whatever the path said. bash, zsh and sh run as named; any other name
// (fish, dash, "") and the Windows shells (pwsh, powershell, cmd) get
// /bin/sh, Codex's fallback when it knows the kind of none or finds none
// installed (measured from the pinned CLI: internal/conformance/codex).
func execShell(shell *string) string {
	if shell == nil {
		return ""
	}
	switch kind := shellKind(*shell); kind {
	case "bash", "zsh", "sh":
		return kind
	}
	return "sh"
}

// shellKind is the kind of shell name names, as Codex's
// detect_shell_type has it: the name itself if it is a kind, else the
// kind of its file stem, "" when none is.
func shellKind(name string) string {
	switch name {
	case "bash", "zsh", "sh", "pwsh", "powershell", "cmd":
		return name
	}
	if stem := fileStem(name); stem != "" && stem != name {
		return shellKind(stem)
	}
	return ""
}

// fileStem is a path's last element without its extension (the part from
// its last dot, unless that dot starts the name), as Rust's
// Path::file_stem: "" for a path that ends in .. or names no file.
func fileStem(p string) string {
	p = strings.TrimRight(p, "/")
	name := p[strings.LastIndex(p, "/")+1:]
	if name == "" || name == "." || name == ".." {
		return ""
	}
	if i := strings.LastIndex(name, "."); i > 0 {
		return name[:i]
	}
	return name
}
