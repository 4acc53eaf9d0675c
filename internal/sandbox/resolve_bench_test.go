package sandbox

import (
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// BenchmarkResolveCandidates resolves the paths every sandboxed run asks
// about (the workspace's protected names, the credential places in home),
// in a workspace holding a few of them, with resolve and with
// EvalSymlinks alone as resolve did before its lstat, in alternating
// turns. It reports each one's CPU time (its thread's) per run's worth of
// paths and the ratio.
//
//	go test -run '^$' -bench ResolveCandidates -benchtime 2000x ./internal/sandbox
func BenchmarkResolveCandidates(b *testing.B) {
	base := b.TempDir()
	ws, home := filepath.Join(base, "ws"), filepath.Join(base, "home")
	writeFile(b, ws, ".vscode/settings.json", "{}")
	writeFile(b, ws, ".gitmodules", "")
	writeFile(b, home, ".ssh/id_ed25519", "KEY")
	var cand []string
	for _, p := range workspaceProtected {
		cand = append(cand, filepath.Join(ws, p))
	}
	for _, p := range credentialPlaces {
		cand = append(cand, filepath.Join(home, p))
	}
	walk := func(p string) string {
		abs, err := filepath.Abs(p)
		if err != nil {
			return ""
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			return ""
		}
		return real
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var took [2]time.Duration
	for b.Loop() {
		for i, f := range []func(string) string{resolve, walk} {
			start := threadCPU()
			for _, c := range cand {
				if f(c) == "" && (c == filepath.Join(ws, ".vscode") || c == filepath.Join(home, ".ssh")) {
					b.Fatalf("%s not resolved", c)
				}
			}
			took[i] += threadCPU() - start
		}
	}
	per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 / float64(b.N) }
	b.ReportMetric(per(took[0]), "µs-resolve")
	b.ReportMetric(per(took[1]), "µs-evalsymlinks")
	b.ReportMetric(per(took[0])/per(took[1]), "ratio")
}

// threadCPU is the CPU time of the calling thread.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(1, &ru) // RUSAGE_THREAD
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
