package coordinator

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/benchpair"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/toolgate/toolgate/api"
)

// benchInput is a read_file call's input as Cline sends it, and the
// types of its typed parameters.
var (
	benchInput = json.RawMessage(`{"end_line":40,"path":"src/server/handler.go","start_line":1}`)
	benchTypes = map[string]string{"start_line": "integer", "end_line": "integer"}
)

type benchReadIn struct {
	Path      string `json:"path"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
}

// BenchmarkInputScans measures the byte scans of a call's input against
// the decoding they spare, side by side: the typed-string check before
// coercion, the null search before the null walk, and the canonical-form
// check before the loop key's round trip, the check of required fields
// before the validator (validate). ratio is the scan's time over the
// plain path's. decode is the decoding itself: segmentio's decoder after a
// scan of the keys of a flat input against json.Decoder refusing unknown
// fields.
func BenchmarkInputScans(b *testing.B) {
	keys, flat := []string{"path", "start_line", "end_line"}, true
	validator, validIn, shape := NewValidator(), &reqPath{Path: "src/server/handler.go", StartLine: 1, EndLine: 40}, shapeOf[reqPath]()
	pairs := []struct {
		name        string
		scan, plain func()
	}{
		{"coerce", func() { coerceStrings(benchInput, benchTypes) }, func() { coerceDecoded(benchInput, benchTypes) }},
		{"nulls", func() { nullItem(benchInput, reflect.TypeFor[benchReadIn]()) }, func() { nullItemWalk(benchInput, reflect.TypeFor[benchReadIn]()) }},
		{"loopkey", func() {
			if canonicalFlat(benchInput) {
				_ = "read_file" + "\x00" + string(benchInput)
			}
		}, func() { loopKeyRoundTrip("read_file", benchInput) }},
		{"validate", func() {
			if !requiredSet(validIn, shape.required, shape.requiredOnly) {
				_ = validator.Struct(validIn)
			}
		}, func() { _ = validator.Struct(validIn) }},
		{"decode", func() {
			var in benchReadIn
			_ = decodeStrict(&in, benchInput, keys, flat)
		}, func() {
			var in benchReadIn
			_ = decodeWithDecoder(&in, benchInput)
		}},
	}
	for _, p := range pairs {
		b.Run(p.name, func(b *testing.B) {
			benchpair.Run(b, p.scan, p.plain)
		})
	}
}

// BenchmarkToolMetrics measures counting a finished call through the
// series looked up once per tool (Metrics.series) against looking its
// children up by label values each time, as Metrics does before start.
func BenchmarkToolMetrics(b *testing.B) {
	kept := NewMetrics(prometheus.NewRegistry())
	kept.start(map[api.Dialect][]string{api.DialectCline: {"read_file", "write_to_file", "execute_command"}})
	plain := NewMetrics(prometheus.NewRegistry())
	benchpair.Run(b,
		func() { kept.observe(api.DialectCline, "read_file", api.StatusSucceeded, time.Millisecond, nil) },
		func() { plain.observe(api.DialectCline, "read_file", api.StatusSucceeded, time.Millisecond, nil) })
}
