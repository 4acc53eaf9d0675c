package server

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
)

// BenchmarkEventFanOut measures what many readers of one session's event
// stream cost the server: a session's window is filled to its byte bound
// (8 MiB of outputs and results of 30 KiB, or of 64 KiB), then 150 clients subscribe
// without Last-Event-ID, so each is replayed the whole window, and read it
// to the end. Meanwhile a client of another session posts one call after
// another. Reported:
//   - peak-MB: the largest heap growth over the filled-window baseline
//     while the 150 replays run (sampled every 10 ms; the readers run in
//     this process too, so their buffers count against the server);
//   - held-MB: the growth once all 150 have read everything and stay
//     subscribed;
//   - call-ms-max and call-ms-p50 of the other session's calls during the
//     replays, and base-call-ms-max, the same calls with no subscriber, run
//     side by side as the baseline; call-ratio is max over base max.
//
// Goal (from the design): peak-MB under 40 and call-ms-max under 100.
// Run: go test -run '^$' -bench EventFanOut -benchtime 1x ./server/
func BenchmarkEventFanOut(b *testing.B) {
	// Each fill call makes 3 events of about the chunk size; together they
	// are over the 8 MiB window.
	b.Run("event=30KiB", func(b *testing.B) { benchFanOut(b, 30<<10, 100) })
	b.Run("event=64KiB", func(b *testing.B) { benchFanOut(b, 64<<10, 48) })
}

func benchFanOut(b *testing.B, chunk, fillCalls int) {
	const subscribers = 150
	sb := newSSEBench(b, subscribers)
	f, ts, client := sb.f, sb.ts, sb.client
	busy, other := sb.session(b), sb.session(b)
	text := string(bytes.Repeat([]byte("x"), chunk))
	for i := range fillCalls {
		benchCall(b, client, ts, busy, fmt.Sprintf("toolu_fill_%d", i), text)
	}
	sess, err := f.coord.Sessions().Get(busy)
	if err != nil {
		b.Fatal(err)
	}
	last := sess.Events.LastID()
	seq := 0
	timeCalls := func(stop <-chan struct{}, min int) []time.Duration {
		var took []time.Duration
		for len(took) < min || stop != nil && !closed(stop) {
			seq++
			start := time.Now()
			benchCall(b, client, ts, other, fmt.Sprintf("toolu_other_%d", seq), "hello")
			took = append(took, time.Since(start))
		}
		return took
	}

	for b.Loop() {
		base := timeCalls(nil, 20)
		before := heapAfterGC()

		var wg sync.WaitGroup
		errs := make(chan error, subscribers)
		streams := make([]*http.Response, subscribers)
		readAll := make(chan struct{})
		for i := range subscribers {
			req := ts.request(b, http.MethodGet, "/v1/sessions/"+busy+"/events", nil)
			resp, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			streams[i] = resp
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs <- readUntilID(resp, last)
			}()
		}
		go func() { wg.Wait(); close(readAll) }()
		peak := make(chan uint64, 1)
		go func() { peak <- samplePeakHeap(readAll, 10*time.Millisecond) }()
		during := timeCalls(readAll, 5)
		peakHeap := receive(b, peak)
		for range subscribers {
			if err := receive(b, errs); err != nil {
				b.Fatal(err)
			}
		}
		held := heapAfterGC()
		for _, r := range streams {
			r.Body.Close()
		}

		mb := func(after uint64) float64 { return (float64(after) - float64(before)) / (1 << 20) }
		b.ReportMetric(mb(peakHeap), "peak-MB")
		b.ReportMetric(mb(held), "held-MB")
		b.ReportMetric(ms(slices.Max(during)), "call-ms-max")
		b.ReportMetric(ms(percentile(during, 50)), "call-ms-p50")
		b.ReportMetric(ms(slices.Max(base)), "base-call-ms-max")
		b.ReportMetric(float64(slices.Max(during))/float64(slices.Max(base)), "call-ratio")
		b.Logf("%d subscribers replayed %d events each; %d calls in another session meanwhile", subscribers, last, len(during))
	}
}

// sseBench is the set-up the event stream benchmarks share: a server
// with the test tools that allows every call, and a client that keeps
// enough connections open for every stream.
type sseBench struct {
	f      *fixture
	ts     *testServer
	client *http.Client
}

// newSSEBench sets up a server and a client for streams open at once.
func newSSEBench(b *testing.B, streams int) *sseBench {
	cfg := coordinator.DefaultConfig()
	cfg.AllowAll = true
	f := newFixture(b, fixtureOptions{tools: testTools(), config: cfg, server: Config{Token: testToken}})
	return &sseBench{
		f:      f,
		ts:     &testServer{Server: f.ts, coord: f.coord, reg: f.reg},
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: streams + 8}},
	}
}

// session creates a session in act mode and returns its id.
func (sb *sseBench) session(b *testing.B) string {
	resp := benchDo(b, sb.client, sb.ts, http.MethodPost, "/v1/sessions", map[string]any{"mode": "act"})
	defer resp.Body.Close()
	var s api.Session
	if err := decodeInto(resp, &s); err != nil {
		b.Fatal(err)
	}
	return s.ID
}

func benchDo(b *testing.B, c *http.Client, ts *testServer, method, path string, body any) *http.Response {
	resp, err := c.Do(ts.request(b, method, path, body))
	if err != nil {
		b.Fatal(err)
	}
	return resp
}

// benchCall posts one echo call to a session and waits for its answer.
func benchCall(b *testing.B, c *http.Client, ts *testServer, sid, id, text string) {
	resp := benchDo(b, c, ts, http.MethodPost, "/v1/sessions/"+sid+"/messages", assistant(toolUse(id, "echo", map[string]any{"text": text})))
	defer resp.Body.Close()
	var out api.MessageResponse
	if err := decodeInto(resp, &out); err != nil {
		b.Fatal(err)
	}
	if len(out.Calls) != 1 || out.Calls[0].Status != api.StatusSucceeded {
		b.Fatalf("call %s: %+v", id, out.Calls)
	}
}

// readUntilID reads an event stream until the event with id last,
// skipping the data (a line longer than the buffer is read in pieces).
func readUntilID(resp *http.Response, last int64) error {
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	br := bufio.NewReaderSize(resp.Body, 16<<10)
	want := []byte("id: " + strconv.FormatInt(last, 10) + "\n")
	lineStart := true
	for {
		line, err := br.ReadSlice('\n')
		if lineStart && bytes.Equal(line, want) {
			return nil
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			lineStart = false
		case err != nil:
			return fmt.Errorf("stream ended before event %d: %w", last, err)
		default:
			lineStart = true
		}
	}
}

// samplePeakHeap returns the largest live heap seen until stop closes.
func samplePeakHeap(stop <-chan struct{}, every time.Duration) uint64 {
	var peak uint64
	var m runtime.MemStats
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		runtime.ReadMemStats(&m)
		peak = max(peak, m.HeapAlloc)
		select {
		case <-stop:
			return peak
		case <-t.C:
		}
	}
}

func heapAfterGC() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func percentile(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[(len(s)-1)*p/100]
}

func decodeInto(resp *http.Response, v any) error {
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}
