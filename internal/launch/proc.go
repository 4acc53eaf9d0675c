package launch

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// What a process costs, from Linux's /proc; elsewhere these return the
// error of the missing file.

// clockTick is a tick of /proc/PID/stat's times: USER_HZ is 100 on Linux.
const clockTick = 10 * time.Millisecond

// CPU is the user and system CPU time process pid has used (all its
// threads), and the same with the children it has reaped (the commands it
// ran), from /proc/PID/stat.
func CPU(pid int) (own, withChildren time.Duration, err error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, err
	}
	// The fields after the command name, which is in parentheses and may
	// hold spaces: state is field 3, utime 14, stime 15, cutime 16,
	// cstime 17.
	f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+2:]))
	if len(f) < 15 {
		return 0, 0, errors.New("short /proc stat")
	}
	var ticks [4]int64
	for i := range ticks {
		if ticks[i], err = strconv.ParseInt(f[14-3+i], 10, 64); err != nil {
			return 0, 0, err
		}
	}
	own = time.Duration(ticks[0]+ticks[1]) * clockTick
	return own, own + time.Duration(ticks[2]+ticks[3])*clockTick, nil
}

// Memory is a size field of /proc/PID/status (VmRSS, VmHWM, ...), in
// bytes.
func Memory(pid int, field string) (uint64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(data)) {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("%s in /proc/%d/status: %w", field, pid, err)
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", field, pid)
}

// ResetPeakRSS sets process pid's peak RSS (VmHWM) back to its current
// RSS, so that Memory(pid, "VmHWM") then tells the peak of what follows.
func ResetPeakRSS(pid int) error {
	return os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0)
}

// CPU is the server's CPU time, own and with its reaped children (see
// the function CPU).
func (s *Server) CPU() (own, withChildren time.Duration, err error) { return CPU(s.Pid()) }
