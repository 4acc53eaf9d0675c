package sandbox

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// A run's Finish reads from its cgroups' event files which limit the run
// reached, after its command has ended and before its result can be
// answered; read by path (an open through cgroupfs, reads, a close) each
// took 90-110 µs here at load 16-20, one per hierarchy. So each run's
// event files are opened when its cgroups are made, ahead of the run, and
// read again from their start. Speed only: BenchmarkLimitEvents
// (./internal/sandbox/) defends it.

// eventFiles are one hierarchy's event files of a run, nil where not
// opened (they are then read by path).
type eventFiles struct {
	pids   *os.File // pids.events
	memory *os.File // memory.oom_control (v1) or memory.events (v2)
}

// memoryEvents is the file that counts a hierarchy's OOM kills.
func memoryEvents(h limitHier) string {
	if h.v2 {
		return "memory.events"
	}
	return "memory.oom_control"
}

// openEvents opens the event files of a run's cgroup dir in h.
func openEvents(dir string, h limitHier) eventFiles {
	var e eventFiles
	if h.pids {
		e.pids, _ = os.Open(filepath.Join(dir, "pids.events"))
	}
	if h.memory {
		e.memory, _ = os.Open(filepath.Join(dir, memoryEvents(h)))
	}
	return e
}

// close closes the files.
func (e eventFiles) close() {
	for _, f := range []*os.File{e.pids, e.memory} {
		if f != nil {
			_ = f.Close()
		}
	}
}

// eventCountIn reads "key N" from an events file: f from its start when
// it is open, else the file at path.
func eventCountIn(f *os.File, path, key string) int64 {
	if f == nil {
		return eventCount(path, key)
	}
	var buf [512]byte
	n, err := f.ReadAt(buf[:], 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return eventCount(path, key)
	}
	return countOf(string(buf[:n]), key)
}

// eventCount reads "key N" from a cgroup events file.
func eventCount(file, key string) int64 {
	data, err := os.ReadFile(file)
	if err != nil {
		return 0
	}
	return countOf(string(data), key)
}

// countOf finds "key N" among an events file's lines.
func countOf(data, key string) int64 {
	for _, line := range strings.Split(data, "\n") {
		if k, v, ok := strings.Cut(line, " "); ok && k == key {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}
