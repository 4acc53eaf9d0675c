package helper

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
)

// A command comes in two messages: the command with its standard
// streams, sent while toolgate still writes the call's start record to
// disk, and Go, sent once it is there. Between them the helper readies
// the command (decodes it, moves to its directory, finds its program
// along its PATH), so that this work overlaps the record's fsync instead
// of following it; nothing of the command runs before Go. A control
// socket closed before Go (the record failed, toolgate ended) ends the
// helper without running it. The mounts are checked after Go, right
// before the command starts, as before. Speed only: bench/peers/run.sh
// (`true` via execute_command with the defaults) defends it.

// command is a command taken from toolgate, readied to start.
type command struct {
	req  Request
	fds  []int // its standard streams: stdin, stdout, stderr
	path string
	env  []string
	// err says why it cannot start: written to its stderr, once it was
	// said to be started, with exit status 126.
	err error
}

// take receives a command and readies it, waits for Go, and checks the
// sandbox's mounts again (a mount whose path was removed or renamed
// outside since the sandbox was made, an editor saving a masked file
// anew, is gone or elsewhere inside). A refusal is answered with a Reply
// saying why, and the streams are closed.
func take(spec Spec, ids []uint64, inbox []byte) (command, error) {
	req, fds, err := receive(spec, commandMessage, inbox)
	if err != nil {
		return command{}, err
	}
	c := ready(req, fds)
	fail := func(err error) (command, error) {
		for _, fd := range fds {
			_ = syscall.Close(fd)
		}
		return command{}, err
	}
	if _, _, err := receive(spec, goMessage, inbox); err != nil {
		return fail(err)
	}
	if err := checkMountsAgain(spec.Mounts, ids); err != nil {
		reply(spec.Control, Reply{Error: err.Error()})
		return fail(err)
	}
	return c, nil
}

// ready moves to the command's directory and finds its program along its
// PATH.
func ready(req Request, fds []int) command {
	c := command{req: req, fds: fds, env: req.Env}
	if len(req.Argv) == 0 {
		c.err = errors.New("no command to run")
		return c
	}
	if req.Dir != "" {
		if err := os.Chdir(req.Dir); err != nil {
			c.err = err
			return c
		}
		c.env = append(c.env, "PWD="+req.Dir) // as bubblewrap's --chdir sets it
	}
	_ = os.Unsetenv("PATH")
	for _, kv := range c.env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			_ = os.Setenv("PATH", v) // where exec.LookPath looks
		}
	}
	c.path, c.err = exec.LookPath(req.Argv[0])
	return c
}
