// Command toolgate serves AI coding agents' tool calls over HTTP.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// governProcs is set by main: a toolgate process serving on its own lets
// internal/procs govern GOMAXPROCS; serve run inside another program (the
// tests) leaves that program's setting alone.
var governProcs bool

func main() {
	governProcs = true
	// Before anything else: the token must leave the environment that
	// /proc shows (this re-executes toolgate when it is there).
	if err := reexecWithoutToken(os.Args); err != nil {
		fmt.Fprintln(os.Stderr, "toolgate:", err)
		os.Exit(1)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args, os.Getenv, os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "toolgate:", err)
		os.Exit(1)
	}
}
