package coordinator

import (
	"testing"
	"time"
)

func TestToolTimeline(t *testing.T) {
	var tl toolTimeline
	t0 := time.Date(2026, 1, 2, 15, 4, 10, 0, time.UTC)
	ms := time.Millisecond
	// Minute 15:04: 20 reads, one slow and one failed.
	for i := range 20 {
		d := 2 * ms
		if i == 0 {
			d = 800 * ms
		}
		tl.add(t0.Add(time.Duration(i)*time.Second), "read_file", i != 1, d)
	}
	// 15:06: one failed command.
	tl.add(t0.Add(2*time.Minute), "execute_command", false, 40*ms)

	t.Run("minutes with calls, oldest first", func(t *testing.T) {
		got := tl.snapshot(t0.Add(3 * time.Minute))
		if len(got.Minutes) != 2 || !got.Minutes[0].Start.Equal(t0.Truncate(time.Minute)) || !got.Minutes[1].Start.Equal(t0.Add(2*time.Minute).Truncate(time.Minute)) {
			t.Fatalf("minutes = %+v, want 15:04 and 15:06", got.Minutes)
		}
		rf := got.Minutes[0].Tools[0]
		if rf.Tool != "read_file" || rf.Calls != 20 || rf.Errors != 1 {
			t.Errorf("read_file = %+v, want 20 calls, 1 error", rf)
		}
		if want := (0.8 + 19*0.002) / 20; rf.MeanSeconds < want-1e-9 || rf.MeanSeconds > want+1e-9 {
			t.Errorf("mean = %v, want %v", rf.MeanSeconds, want)
		}
		// 19 of 20 calls took 2 ms: the 95th percentile is in the
		// (1 ms, 2.5 ms] bucket, capped at the slowest call's 800 ms.
		if rf.P95Seconds != 0.0025 {
			t.Errorf("p95 = %v, want 0.0025", rf.P95Seconds)
		}
		if ec := got.Minutes[1].Tools[0]; ec.Tool != "execute_command" || ec.Calls != 1 || ec.Errors != 1 || ec.P95Seconds != 0.04 {
			t.Errorf("execute_command = %+v, want 1 failed call, p95 capped at its 40 ms", ec)
		}
	})
	t.Run("an hour later the old minutes are gone", func(t *testing.T) {
		tl.add(t0.Add(59*time.Minute), "read_file", true, ms)
		got := tl.snapshot(t0.Add(60 * time.Minute))
		if len(got.Minutes) != 2 || got.Minutes[0].Tools[0].Tool != "execute_command" {
			t.Fatalf("minutes = %+v, want 15:06 and 16:03", got.Minutes)
		}
		// 16:04 reuses 15:04's slot: it starts afresh.
		tl.add(t0.Add(60*time.Minute), "read_file", true, ms)
		got = tl.snapshot(t0.Add(60 * time.Minute))
		last := got.Minutes[len(got.Minutes)-1]
		if last.Tools[0].Calls != 1 {
			t.Errorf("16:04 = %+v, want its one call only", last)
		}
	})
}
