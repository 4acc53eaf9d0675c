package process

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"testing"
	"time"
)

// BenchmarkRunTrueVsBash runs `true` through Run (pipes, streaming,
// the run's cgroup where there is one) and, alternating turn by turn,
// spawns `bash -c true` with os/exec, from 1 and 8 goroutines, and reports
// Run's rate against the bare spawn ("ratio"), the same for the CPU time
// per command, the commands' own included ("cpu_ratio"), and the CPU time
// Run adds to each command. "cgroup=off" runs without the per-run cgroups, as on a
// machine that has none.
//
//	go test -run '^$' -bench RunTrueVsBash -benchtime 200x ./internal/process
func BenchmarkRunTrueVsBash(b *testing.B) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		b.Skip("needs bash")
	}
	dir := b.TempDir()
	env := os.Environ()
	bare := func() error {
		cmd := exec.Command(bash, "-c", "true")
		cmd.Dir, cmd.Env = dir, env
		return cmd.Run()
	}
	viaRun := func() error {
		out := NewOutput(OutputLimits{Dir: dir})
		res, err := Run(context.Background(), Options{Command: "true", Dir: dir, Env: env, Timeout: time.Minute, Output: out,
			OnChunk: func(string, string) {}, OnBytes: func(string, int) {}})
		_ = out.Close()
		_ = out.Remove()
		if err == nil && res.ExitCode != 0 {
			err = fmt.Errorf("exit code %d", res.ExitCode)
		}
		return err
	}
	for _, cg := range []string{"on", "off"} {
		for _, callers := range []int{1, 8} {
			b.Run(fmt.Sprintf("cgroup=%s/callers=%d", cg, callers), func(b *testing.B) {
				if cg == "on" && cgroups() == nil {
					b.Skip("no cgroups to run in")
				}
				if cg == "off" {
					saved := cgroups
					cgroups = func() *cgroupParent { return nil }
					defer func() { cgroups = saved }()
				}
				const turn = 16
				var took, cpu [2]time.Duration
				n := 0
				for r := 0; n < b.N; r++ {
					for k := range 2 {
						w := (r + k) % 2
						c0 := cpuTime()
						took[w] += spawnTurn(b, callers, turn, []func() error{viaRun, bare}[w])
						cpu[w] += cpuTime() - c0
					}
					n += turn
				}
				b.ReportMetric(float64(took[1])/float64(took[0]), "ratio")
				b.ReportMetric(float64(cpu[1])/float64(cpu[0]), "cpu_ratio")
				b.ReportMetric(float64(cpu[0]-cpu[1])/float64(n)/float64(time.Microsecond), "cpu-µs-added/command")
			})
		}
	}
}

// spawnTurn runs call n times from callers goroutines and returns the wall
// time it took.
func spawnTurn(b *testing.B, callers, n int, call func() error) time.Duration {
	var wg sync.WaitGroup
	start := time.Now()
	for c := range callers {
		wg.Go(func() {
			for i := c; i < n; i += callers {
				if err := call(); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	return time.Since(start)
}

// cpuTime is the user and system CPU time of the process and of its
// children that have been waited for.
func cpuTime() time.Duration {
	var self, children syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &self) != nil || syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children) != nil {
		return 0
	}
	return time.Duration(self.Utime.Nano() + self.Stime.Nano() + children.Utime.Nano() + children.Stime.Nano())
}
