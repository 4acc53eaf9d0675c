package randid

import (
	"encoding/base64"
	"encoding/hex"
	"testing"
)

func TestShapes(t *testing.T) {
	for _, n := range []int{4, 8, 12, 16, 32} {
		h := Hex(n)
		if len(h) != 2*n {
			t.Errorf("Hex(%d) = %q, %d characters, want %d", n, h, len(h), 2*n)
		}
		if b, err := hex.DecodeString(h); err != nil || len(b) != n {
			t.Errorf("Hex(%d) = %q does not decode to %d bytes: %v", n, h, n, err)
		}
		u := Base64URL(n)
		if b, err := base64.RawURLEncoding.DecodeString(u); err != nil || len(b) != n {
			t.Errorf("Base64URL(%d) = %q does not decode to %d bytes: %v", n, u, n, err)
		}
	}
}

// TestDistinct draws many ids and expects no repeat: with 16 random bytes
// a repeat means the source is not random.
func TestDistinct(t *testing.T) {
	seen := map[string]bool{}
	for range 10000 {
		for _, id := range []string{Hex(16), Base64URL(16)} {
			if seen[id] {
				t.Fatalf("id %q drawn twice", id)
			}
			seen[id] = true
		}
	}
}
