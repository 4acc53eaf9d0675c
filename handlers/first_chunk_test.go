package handlers

import "testing"

// TestFirstChunk: a command's first chunk is taken to end at the output's
// first change of stream.
func TestFirstChunk(t *testing.T) {
	var f firstChunk
	for _, w := range []struct {
		stream string
		n      int
	}{{"stdout", 3}, {"stdout", 4}, {"stderr", 5}, {"stdout", 6}} {
		f.add(w.stream, w.n)
	}
	if got := f.size(); got != 7 {
		t.Errorf("size = %d, want 7 (stdout's writes before the first stderr write)", got)
	}
}
