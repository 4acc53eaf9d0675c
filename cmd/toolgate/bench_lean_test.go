package main

import "testing"

// TestBenchLean: TOOLGATE_BENCH_LEAN means the same in every benchmark:
// 1 measures toolgate lean, 0 does not, unset leaves the benchmark's
// choice (before, ManySessionsMemory read 0 as "lean").
func TestBenchLean(t *testing.T) {
	for _, tc := range []struct {
		value     string
		def, want bool
	}{
		{"", true, true}, {"", false, false},
		{"1", false, true}, {"true", false, true},
		{"0", true, false}, {"0", false, false}, {"false", true, false},
	} {
		t.Setenv("TOOLGATE_BENCH_LEAN", tc.value)
		if got := benchLean(t, tc.def); got != tc.want {
			t.Errorf("TOOLGATE_BENCH_LEAN=%q, default %v: %v, want %v", tc.value, tc.def, got, tc.want)
		}
	}
}
