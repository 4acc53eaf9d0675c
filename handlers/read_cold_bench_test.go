package handlers

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// BenchmarkReadPipelineCold times the two sides of BenchmarkReadPipeline
// one call at a time, with the caches warm (calls back to back) and cold
// (memory written between calls: 4 MiB, more than a core's L2 holds, or
// 64 MiB, more than the L3 too), and reports each side's median per call
// and the pipeline's cold time over the bare read's. A server answering one caller finds its caches
// partly cold at each call: the client, the kernel's network path and
// the runtime ran in between. A pipeline that touches fewer distinct
// lines of code and data per call loses less here; the warm figures hold
// it to BenchmarkReadPipeline's.
//
//	go test -run '^$' -bench ReadPipelineCold -benchtime 1000x ./handlers/
func BenchmarkReadPipelineCold(b *testing.B) {
	for _, mib := range []int{4, 64} {
		b.Run(fmt.Sprintf("evict=%dMiB", mib), func(b *testing.B) { readPipelineCold(b, mib<<20) })
	}
}

func readPipelineCold(b *testing.B, evictBytes int) {
	pipeline, bare := newReadPipeline(b)
	for range 200 { // the session's first calls fill its structures
		pipeline()
	}
	evict := make([]byte, evictBytes)
	median := func(call func(), cold bool) float64 {
		times := make([]time.Duration, 0, b.N)
		for range b.N {
			if cold {
				for i := 0; i < len(evict); i += 64 {
					evict[i]++
				}
			}
			start := time.Now()
			call()
			times = append(times, time.Since(start))
		}
		slices.Sort(times)
		return float64(times[len(times)/2].Nanoseconds()) / 1e3
	}
	pipeWarm, bareWarm := median(pipeline, false), median(bare, false)
	pipeCold, bareCold := median(pipeline, true), median(bare, true)
	b.ReportMetric(pipeWarm, "pipeline_warm_µs")
	b.ReportMetric(pipeCold, "pipeline_cold_µs")
	b.ReportMetric(bareWarm, "bare_warm_µs")
	b.ReportMetric(bareCold, "bare_cold_µs")
	b.ReportMetric(pipeCold/bareCold, "cold_ratio")
}
