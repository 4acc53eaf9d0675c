package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/toolgate/toolgate/coordinator/tool"
)

// The bearer token must not sit where another process of the same user
// can read it: /proc/<pid>/environ and /proc/<pid>/cmdline are readable
// by any of them. A token given in TOOLGATE_TOKEN is therefore handed
// to a re-executed toolgate through a pipe, and the variable is gone
// from the new process's environment. --token-file reads it from a file
// (or stdin with "-") instead, and that file is hidden from the sandbox.

// tokenFDVar names the inherited descriptor a re-executed toolgate reads
// its token from; the token itself never is in the environment then.
const tokenFDVar = "TOOLGATE_TOKEN_FD"

// maxTokenBytes bounds a token read from a file, stdin or the pipe.
const maxTokenBytes = 4096

// reexecWithoutToken replaces the process with toolgate started again
// without TOOLGATE_TOKEN, the token passed through a pipe. It returns
// (nil) without doing anything unless serve is run with the variable set;
// it only returns an error when the re-exec failed.
func reexecWithoutToken(args []string) error {
	token, ok := os.LookupEnv(tool.ServerTokenVar)
	if !ok || len(args) < 2 || args[1] != "serve" {
		return nil
	}
	if len(token) > maxTokenBytes {
		return fmt.Errorf("%s is longer than %d bytes", tool.ServerTokenVar, maxTokenBytes)
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	// The token fits the pipe's buffer: the write never waits for a reader.
	if _, err := w.WriteString(token); err != nil {
		return err
	}
	_ = w.Close()
	fd, err := syscall.Dup(int(r.Fd())) // a dup keeps no close-on-exec flag
	if err != nil {
		return err
	}
	env := []string{tokenFDVar + "=" + strconv.Itoa(fd)}
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); name != tool.ServerTokenVar && name != tokenFDVar {
			env = append(env, kv)
		}
	}
	return syscall.Exec(exe, args, env)
}

// serverToken finds the token: --token-file (a path, or "-" for a line of
// stdin), the pipe of a re-exec, TOOLGATE_TOKEN; "" when none is given.
// file is the token file's absolute path, for the sandbox to hide.
func serverToken(tokenFile string, getenv func(string) string, stdin io.Reader) (token, file string, err error) {
	switch {
	case tokenFile == "-":
		line, err := bufio.NewReader(io.LimitReader(stdin, maxTokenBytes+1)).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return "", "", fmt.Errorf("read the token from stdin: %w", err)
		}
		return checkToken(line, "stdin")
	case tokenFile != "":
		abs, err := filepath.Abs(tokenFile)
		if err != nil {
			return "", "", err
		}
		data, err := readCapped(abs)
		if err != nil {
			return "", "", fmt.Errorf("read the token file: %w", err)
		}
		token, _, err := checkToken(string(data), tokenFile)
		return token, abs, err
	case getenv(tokenFDVar) != "":
		fd, err := strconv.Atoi(getenv(tokenFDVar))
		if err != nil || fd < 3 {
			return "", "", fmt.Errorf("%s is not a descriptor number", tokenFDVar)
		}
		f := os.NewFile(uintptr(fd), "token")
		defer f.Close()
		data, err := io.ReadAll(io.LimitReader(f, maxTokenBytes+1))
		if err != nil {
			return "", "", fmt.Errorf("read the token pipe: %w", err)
		}
		return checkToken(string(data), "the token pipe")
	}
	return getenv(tool.ServerTokenVar), "", nil
}

func checkToken(s, from string) (string, string, error) {
	t := strings.TrimSpace(s)
	switch {
	case t == "":
		return "", "", fmt.Errorf("the token from %s is empty", from)
	case len(t) > maxTokenBytes:
		return "", "", fmt.Errorf("the token from %s is longer than %d bytes", from, maxTokenBytes)
	}
	return t, "", nil
}

func readCapped(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxTokenBytes+1))
}
