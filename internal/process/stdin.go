package process

import (
	"io"
	"os"
	"os/exec"
)

// stdinPipe gives cmd a pipe of its own for a standard input that is not
// a file, and copies in to it once started. os/exec would copy it too,
// but its Wait then waits for that copy, and a copy blocked reading an
// input that stays open (a job's stdin, which its writer closes only
// once the run is over) never ends: a command that exited (head -n 1
// after its line) would be seen running for ever. Here the copy is not
// waited for: it ends when in does, or at its next write after the run
// (the pipe is closed under it). start, called after cmd has started,
// begins the copy; done, called once the run is over, closes the pipe.
func stdinPipe(cmd *exec.Cmd, in io.Reader) (start, done func(), err error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	cmd.Stdin = r
	start = func() {
		_ = r.Close() // the child holds its own copy
		go func() {
			_, _ = io.Copy(w, in)
			_ = w.Close()
		}()
	}
	done = func() {
		_ = r.Close()
		_ = w.Close()
	}
	return start, done, nil
}
