package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "peers:", err)
		os.Exit(1)
	}
}

// options are the flags.
type options struct {
	envd, toolgate string
	baseline       string // another toolgate binary, run with its defaults beside
	rounds         int
	reads          int
	commands       int
	keep           bool
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := options{}
	fs.StringVar(&o.envd, "envd", "", "the envd binary (run.sh builds it from bench/peers/envd)")
	fs.StringVar(&o.toolgate, "toolgate", "", "the toolgate binary")
	fs.StringVar(&o.baseline, "baseline", "", "another toolgate binary (an earlier commit's), run with its defaults too, for before and after in one run")
	fs.IntVar(&o.rounds, "rounds", 10, "rounds; each serves every server in turn")
	fs.IntVar(&o.reads, "reads", 200, "1 KB reads per server and round")
	fs.IntVar(&o.commands, "commands", 40, "`true` starts per server and round")
	fs.BoolVar(&o.keep, "keep", false, "keep the scratch directory (servers' logs)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if o.envd == "" || o.toolgate == "" {
		return errors.New("both -envd and -toolgate are needed")
	}
	if os.Geteuid() != 0 {
		// envd sets each process's user and groups, as it runs as root
		// inside E2B's virtual machines; as another user the kernel
		// refuses (setgroups).
		return errors.New("envd starts processes only when it runs as root: run this as root (in a container, say)")
	}
	scratch, err := os.MkdirTemp("", "toolgate-peers-")
	if err != nil {
		return err
	}
	if o.keep {
		fmt.Fprintln(stderr, "scratch directory:", scratch)
	} else {
		defer os.RemoveAll(scratch)
	}
	servers, err := startServers(ctx, o, scratch)
	defer func() {
		for _, s := range servers {
			s.stop()
		}
	}()
	if err != nil {
		return err
	}
	res, err := measure(ctx, o, servers)
	if err != nil {
		return err
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Fprintf(stdout, "load average (1, 5, 15 min): %s\n", strings.Join(strings.Fields(string(load))[:3], " "))
	report(stdout, o, res)
	return nil
}

// startServers starts envd and the three toolgates (four with a
// baseline), each in a workspace of its own holding one_kb.txt.
func startServers(ctx context.Context, o options, scratch string) ([]*server, error) {
	var servers []*server
	specs := []struct {
		name   string
		args   []string
		config string
	}{
		{"toolgate, defaults", nil, `{"policy": {"allow_all": true}}`},
		{"toolgate, --store memory", []string{"--store", "memory"}, `{"policy": {"allow_all": true}}`},
		{"toolgate, sandbox off", nil, `{"policy": {"allow_all": true}, "sandbox": {"mode": "off"}}`},
	}
	bins := []string{o.toolgate, o.toolgate, o.toolgate}
	if o.baseline != "" {
		specs = append(specs, specs[0])
		specs[len(specs)-1].name = "baseline, defaults"
		bins = append(bins, o.baseline)
	}
	for i, sp := range specs {
		dir := filepath.Join(scratch, fmt.Sprintf("toolgate%d", i))
		if err := prepareWorkspace(dir); err != nil {
			return servers, err
		}
		s, err := startToolgate(ctx, bins[i], sp.name, dir, sp.config, sp.args)
		if err != nil {
			return servers, err
		}
		servers = append(servers, s)
	}
	dir := filepath.Join(scratch, "envd")
	if err := prepareWorkspace(dir); err != nil {
		return servers, err
	}
	s, err := startEnvd(ctx, o.envd, dir)
	if err != nil {
		return servers, err
	}
	return append(servers, s), nil
}

// oneKB is the file every server reads: 64 lines of 16 bytes.
var oneKB = strings.Repeat("0123456789abcde\n", 64)

func prepareWorkspace(dir string) error {
	if err := os.MkdirAll(filepath.Join(dir, "ws"), 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "ws", "one_kb.txt"), []byte(oneKB), 0o644)
}
