package helper

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// writeMountinfo writes a mountinfo file with a line for each mount point
// (escaped as the kernel escapes them) and returns its path.
func writeMountinfo(t testing.TB, points []string) string {
	t.Helper()
	var b strings.Builder
	for i, p := range points {
		fmt.Fprintf(&b, "%d 1 0:%d / %s rw,relatime shared:1 - ext4 /dev/sda1 rw\n", 20+i, i, strings.ReplaceAll(p, " ", `\040`))
	}
	b.WriteString("short line\n")
	path := filepath.Join(t.TempDir(), "mountinfo")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCheckMounts: every wanted path must be a mount point by its whole
// name, escapes undone; a prefix or a missing one fails.
func TestCheckMounts(t *testing.T) {
	info := writeMountinfo(t, []string{"/", "/proc", "/home/u/my files", "/tmp"})
	for _, tc := range []struct {
		want []string
		ok   bool
	}{
		{[]string{"/", "/tmp", "/home/u/my files"}, true},
		{nil, true},
		{[]string{"/home/u/my"}, false},
		{[]string{"/tmp", "/gone"}, false},
		{[]string{"/pro"}, false},
	} {
		err := CheckMounts(info, tc.want)
		if (err == nil) != tc.ok {
			t.Errorf("CheckMounts(%q) = %v, want ok %v", tc.want, err, tc.ok)
		}
	}
	if err := CheckMounts(filepath.Join(t.TempDir(), "none"), []string{"/"}); err == nil {
		t.Error("a missing mountinfo passed")
	}
}

// BenchmarkCheckMounts checks 8 mount points against a mountinfo of 200
// lines (a host with many mounts: a sandbox bound from / sees them all),
// with CheckMounts and with the scanner that split each line into fields
// before, in alternating turns; it reports each one's CPU time (its
// thread's) per check and the ratio.
//
//	go test -run '^$' -bench CheckMounts -benchtime 2000x ./internal/sandbox/helper
func BenchmarkCheckMounts(b *testing.B) {
	var points []string
	for i := range 192 {
		points = append(points, fmt.Sprintf("/var/lib/snapd/snap/pkg%d/%d", i, i))
	}
	want := []string{"/", "/dev", "/proc", "/tmp", "/work/ws", "/root/.npmrc", "/root/.local/state/toolgate", "/usr/local/bin/toolgate-sandbox"}
	info := writeMountinfo(b, append(points, want...))
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var took [2]time.Duration
	for b.Loop() {
		for i, check := range []func(string, []string) error{CheckMounts, checkMountsFields} {
			start := threadCPU()
			if err := check(info, want); err != nil {
				b.Fatal(err)
			}
			took[i] += threadCPU() - start
		}
	}
	per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 / float64(b.N) }
	b.ReportMetric(per(took[0]), "µs-check")
	b.ReportMetric(per(took[1]), "µs-fields")
	b.ReportMetric(per(took[0])/per(took[1]), "ratio")
}

// checkMountsFields is CheckMounts as it was: a scanner, each line split
// into fields, the mount points in a map.
func checkMountsFields(mountinfo string, want []string) error {
	f, err := os.Open(mountinfo)
	if err != nil {
		return err
	}
	defer f.Close()
	have := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if fields := strings.Fields(sc.Text()); len(fields) > 4 {
			have[unescapeMountPath(fields[4])] = true
		}
	}
	for _, w := range want {
		if !have[w] {
			return fmt.Errorf("%s is no longer mounted", w)
		}
	}
	return sc.Err()
}

// threadCPU is the CPU time of the calling thread.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(1, &ru) // RUSAGE_THREAD
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
