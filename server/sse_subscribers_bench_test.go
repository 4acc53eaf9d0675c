package server

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
)

// BenchmarkEventLatencyOtherSubscribers measures what subscribers of other
// sessions cost one session's event delivery: the time from an event's
// append (its time field) to its arrival at the one reader of its
// session, over a series of echo calls, first with no other stream open
// and then with 1,000 streams open on 100 other sessions (10 each), side
// by side. The other streams are idle, or their sessions busy (a client
// posts calls to them meanwhile, each event going to 10 readers), or
// churning (one of them closes and opens again after another). Reported:
// p50 and max of each half, and the ratio of the p50s.
//
// The measured stream starts at the newest event (Last-Event-ID): opened
// without it, it would replay the window, and the age of the replayed
// events (seconds, the time the 1,000 streams took to open) would count
// as their latency.
// Run: go test -run '^$' -bench EventLatencyOtherSubscribers -benchtime 1x ./server/
func BenchmarkEventLatencyOtherSubscribers(b *testing.B) {
	for _, load := range []string{"idle", "busy", "churn"} {
		b.Run("others="+load, func(b *testing.B) { benchOtherSubscribers(b, load) })
	}
}

// otherStreams are the 1,000 streams of other sessions.
type otherStreams struct {
	streams []*http.Response
	paths   []string
	wg      sync.WaitGroup
}

func (o *otherStreams) open(b *testing.B, c *http.Client, ts *testServer, path string) *http.Response {
	resp := benchDo(b, c, ts, http.MethodGet, path, nil)
	if resp.StatusCode != http.StatusOK {
		b.Fatalf("subscribe: %d", resp.StatusCode)
	}
	o.wg.Add(1)
	go func() { defer o.wg.Done(); readEventDelays(resp, nil) }()
	return resp
}

func benchOtherSubscribers(b *testing.B, load string) {
	const others, perSession, calls = 100, 10, 60
	sb := newSSEBench(b, others*perSession)
	ts, client := sb.ts, sb.client
	measured := sb.session(b)
	sess, err := sb.f.coord.Sessions().Get(measured)
	if err != nil {
		b.Fatal(err)
	}
	round := 0
	latencies := func() []time.Duration {
		round++
		events := make(chan time.Duration, 16*calls)
		req := ts.request(b, http.MethodGet, "/v1/sessions/"+measured+"/events", nil, "Last-Event-ID", strconv.FormatInt(sess.Events.LastID(), 10))
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		defer resp.Body.Close()
		go readEventDelays(resp, events)
		var out []time.Duration
		for i := range calls {
			benchCall(b, client, ts, measured, fmt.Sprintf("toolu_lat_%d_%d", round, i), "hello")
			out = append(out, drainDelays(events)...)
		}
		return out
	}

	for b.Loop() {
		base := latencies()
		var o otherStreams
		var sids []string
		for range others {
			sid := sb.session(b)
			sids = append(sids, sid)
			for range perSession {
				path := "/v1/sessions/" + sid + "/events"
				o.streams = append(o.streams, o.open(b, client, ts, path))
				o.paths = append(o.paths, path)
			}
		}
		stop, done := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(done)
			for n := 0; !closed(stop); n++ {
				switch load {
				case "busy":
					benchCall(b, client, ts, sids[n%len(sids)], fmt.Sprintf("toolu_busy_%d", n), "busy")
				case "churn":
					i := n % len(o.streams)
					o.streams[i].Body.Close()
					o.streams[i] = o.open(b, client, ts, o.paths[i])
				default:
					return
				}
			}
		}()
		loaded := latencies()
		close(stop)
		<-done
		for _, r := range o.streams {
			r.Body.Close()
		}
		o.wg.Wait()
		if len(base) == 0 || len(loaded) == 0 {
			b.Fatalf("no events read: %d, %d", len(base), len(loaded))
		}
		b.ReportMetric(ms(percentile(base, 50)), "p50-ms-0-subs")
		b.ReportMetric(ms(percentile(loaded, 50)), "p50-ms-1000-subs")
		b.ReportMetric(ms(slices.Max(base)), "max-ms-0-subs")
		b.ReportMetric(ms(slices.Max(loaded)), "max-ms-1000-subs")
		b.ReportMetric(float64(percentile(loaded, 50))/float64(percentile(base, 50)), "p50-ratio")
	}
}

// drainDelays takes the delays that arrive until none came for 20 ms.
func drainDelays(events <-chan time.Duration) []time.Duration {
	var out []time.Duration
	quiet := time.NewTimer(20 * time.Millisecond)
	defer quiet.Stop()
	for {
		select {
		case d := <-events:
			out = append(out, d)
			quiet.Reset(20 * time.Millisecond)
		case <-quiet.C:
			return out
		}
	}
}

// readEventDelays reads an event stream until it ends, sending how long
// after its append each event arrived (when events is not nil).
func readEventDelays(resp *http.Response, events chan<- time.Duration) {
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line, ok := bytes.CutPrefix(sc.Bytes(), []byte("data: "))
		if !ok || events == nil {
			continue
		}
		var ev api.Event
		if json.Unmarshal(line, &ev) == nil && !ev.Time.IsZero() {
			events <- time.Since(ev.Time)
		}
	}
}
