package eventlog

import (
	"bytes"
	"reflect"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/internal/benchpair"
)

// BenchmarkAppendCall appends a read's tool.queued and tool.started to a
// full window of the default size (4,096 events, 8 MiB), as a session at
// its bounds does at every call: with AppendCall, the record copied into
// the event's allocation, against Append with a copy of the record the
// caller made for the event (as the pipeline did), a second allocation.
//
//	go test -run '^$' -bench AppendCall -count 5 ./coordinator/eventlog/
func BenchmarkAppendCall(b *testing.B) {
	const size, maxBytes = 4096, 8 << 20
	now := time.Now().UTC()
	rec := api.CallRecord{ToolUseID: "toolu_1", Name: "read_file", State: api.StateQueued, StartedAt: &now}
	fast, plain := New("s1", size, maxBytes), New("s1", size, maxBytes)
	types := [2]string{api.EventToolQueued, api.EventToolStarted}
	for i := range 2 * size { // both windows full
		fast.AppendCall(api.Event{Type: types[i%2], ToolUseID: rec.ToolUseID}, &rec)
		plain.Append(api.Event{Type: types[i%2], ToolUseID: rec.ToolUseID, Call: &rec})
	}
	i, j := 0, 0
	benchpair.Run(b, func() {
		r := rec
		fast.AppendCall(api.Event{Type: types[i%2], ToolUseID: r.ToolUseID}, &r)
		i++
	}, func() {
		r := rec
		plain.Append(api.Event{Type: types[j%2], ToolUseID: r.ToolUseID, Call: &r})
		j++
	})
}

// TestAppendCallSameAsAppend holds AppendCall to Append with the record
// copied for the event: the same events, sizes and JSON, the record a
// copy the caller's later changes do not reach.
func TestAppendCallSameAsAppend(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	fast, plain := New("s1", 4, 1<<20), New("s1", 4, 1<<20)
	for i, typ := range []string{api.EventToolQueued, api.EventToolStarted, api.EventToolQueued, api.EventToolStarted, api.EventToolQueued} {
		rec := api.CallRecord{ToolUseID: "toolu_" + string(rune('a'+i)), Name: "read_file", MessageID: "m1", State: api.StateRunning, StartedAt: &now}
		ev := api.Event{Type: typ, MessageID: "m1", ToolUseID: rec.ToolUseID}
		fast.AppendCall(ev, &rec)
		kept := rec
		ev.Call = &kept
		plain.Append(ev)
		rec.State, rec.Name = api.StateDone, "changed"
	}
	fb, pb := fast.Read(0, 10), plain.Read(0, 10)
	if len(fb.Events) != 4 || len(pb.Events) != 4 || fb.Next != pb.Next || fb.Missed != pb.Missed || fast.bytes != plain.bytes {
		t.Fatalf("AppendCall: %d events next %d missed %d bytes %d; Append: %d, %d, %d, %d",
			len(fb.Events), fb.Next, fb.Missed, fast.bytes, len(pb.Events), pb.Next, pb.Missed, plain.bytes)
	}
	for i := range fb.Events {
		f, p := fb.Events[i], pb.Events[i]
		if f.Call == nil || p.Call == nil || f.Call.State != api.StateRunning || f.Call.Name != "read_file" {
			t.Fatalf("event %d: record %+v", i, f.Call)
		}
		f.Time, p.Time = time.Time{}, time.Time{}
		if *f.Call != *p.Call {
			t.Fatalf("event %d: record %+v, want %+v", i, *f.Call, *p.Call)
		}
		f.Call, p.Call = nil, nil
		if !reflect.DeepEqual(f, p) {
			t.Fatalf("event %d: %+v, want %+v", i, f, p)
		}
		fj, pj := fb.JSON[i].Bytes(), pb.JSON[i].Bytes()
		// The times differ; the rest of the JSON does not.
		if withoutTime(fj) != withoutTime(pj) {
			t.Fatalf("event %d JSON:\n%s\nwant\n%s", i, fj, pj)
		}
	}
}

// withoutTime is an event's JSON with its time's value taken out.
func withoutTime(j []byte) string {
	i := bytes.Index(j, []byte(`"time":"`))
	end := bytes.IndexByte(j[i+len(`"time":"`):], '"')
	return string(j[:i]) + string(j[i+len(`"time":"`)+end:])
}
