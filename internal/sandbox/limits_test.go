package sandbox

import (
	"testing"
)

func TestForkBombEndsAtTheProcessLimit(t *testing.T) {
	for _, mode := range ways {
		t.Run(mode, func(t *testing.T) {
			s := newTest(t, Config{Mode: mode, MaxProcesses: 64}, "")
			if s.cgroups == nil || !s.cgroups.has("pids") {
				t.Skip("no pids cgroup here; root is not bound by RLIMIT_NPROC")
			}
			// Each copy starts two more and waits: without a limit it
			// would fill the machine's process table.
			o := runIn(t, s, Run{Workspace: t.TempDir()}, `bomb() { bomb | bomb & wait; }; bomb; wait; exit 3`)
			if o.limit == "" || !contains(o.limit, "process limit") {
				t.Errorf("limit = %q, want the process limit named (exit %d)", o.limit, o.code)
			}
		})
	}
}

func TestMemoryHogEndsAtTheMemoryLimit(t *testing.T) {
	for _, mode := range ways {
		t.Run(mode, func(t *testing.T) {
			s := newTest(t, Config{Mode: mode, MaxMemoryBytes: 64 << 20}, "")
			// tail keeps the current line in memory, and /dev/zero has
			// no newline.
			o := runIn(t, s, Run{Workspace: t.TempDir()}, `tail /dev/zero; echo "tail ended: $?"`)
			if contains(o.out, "tail ended: 0") {
				t.Fatalf("the memory hog succeeded:\n%s", o.out)
			}
			// Either the kernel killed it at the cgroup's limit (the
			// reason names it) or an allocation failed and tail said so.
			if s.cgroups != nil && s.cgroups.has("memory") && !contains(o.limit, "memory limit") && !contains(o.out, "memory exhausted") {
				t.Errorf("limit = %q, want the memory limit named\n%s", o.limit, o.out)
			}
		})
	}
}
