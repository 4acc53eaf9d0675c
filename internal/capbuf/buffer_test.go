package capbuf

import "testing"

func TestBufferKeepsTheFirstMaxBytes(t *testing.T) {
	b := &Buffer{Max: 5}
	b.Add("abc")
	if b.Cut() {
		t.Fatal("cut after 3 of 5 bytes")
	}
	b.Add("defg")
	if got := string(b.Bytes()); got != "abcde" || !b.Cut() {
		t.Errorf("Bytes = %q, Cut = %v; want %q, true", got, b.Cut(), "abcde")
	}
	b.Add("h")
	if got := string(b.Bytes()); got != "abcde" {
		t.Errorf("after the cap: Bytes = %q, want %q", got, "abcde")
	}
	b.Reset()
	b.Add("xy")
	if got := string(b.Bytes()); got != "xy" || b.Cut() {
		t.Errorf("after Reset: Bytes = %q, Cut = %v; want %q, false", got, b.Cut(), "xy")
	}
}
