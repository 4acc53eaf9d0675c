package tool

import "sync"

// ShellDir is the directory a session's commands start in when its
// dialect's shell keeps the working directory between commands, as
// Claude Code's Bash does after a cd: workspace-relative, "" for the
// root. A nil *ShellDir is always the root.
type ShellDir struct {
	mu  sync.Mutex
	rel string
}

// Get returns the directory the next command starts in.
func (d *ShellDir) Get() string {
	if d == nil {
		return ""
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.rel
}

// Set records where the last command left the shell.
func (d *ShellDir) Set(rel string) {
	if d == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.rel = rel
}
