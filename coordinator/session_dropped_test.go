package coordinator

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/toolgate/toolgate/internal/benchpair"
)

// TestDroppedIDsForgetTheOldestBeyondTheBound: the set answers for the
// last maxDroppedIDs ids, forgets older ones, and forgets a removed id.
func TestDroppedIDsForgetTheOldestBeyondTheBound(t *testing.T) {
	var d droppedIDs
	id := func(i int) string { return fmt.Sprintf("toolu_%d", i) }
	for i := range maxDroppedIDs + 1 {
		d.add(id(i))
	}
	if d.has(id(0)) {
		t.Error("the oldest id is still remembered beyond the bound")
	}
	for _, i := range []int{1, maxDroppedIDs / 2, maxDroppedIDs} {
		if !d.has(id(i)) {
			t.Errorf("%s forgotten within the bound", id(i))
		}
	}
	if d.n != maxDroppedIDs || len(d.ring) != maxDroppedIDs {
		t.Errorf("holds %d ids in a ring of %d, want %d", d.n, len(d.ring), maxDroppedIDs)
	}
	d.remove(id(7))
	if d.has(id(7)) {
		t.Error("a removed id is still remembered")
	}
}

// TestDroppedIDsAgreeWithAMap: the table answers as the Go map it
// replaced does, through adds past the bound (the ring forgetting the
// oldest), removes and re-adds, and tables small enough that probes run
// long and wrap round its end.
func TestDroppedIDsAgreeWithAMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var d droppedIDs
	var m mapDroppedIDs
	id := func() string { return fmt.Sprintf("toolu_%d", rng.IntN(3*maxDroppedIDs)) }
	for i := range 40 * maxDroppedIDs {
		x := id()
		if d.has(x) != m.has(x) {
			t.Fatalf("step %d: has(%s) = %v, the map says %v", i, x, d.has(x), m.has(x))
		}
		switch rng.IntN(8) {
		case 0:
			d.remove(x)
			m.remove(x)
		default:
			d.add(x)
			m.add(x)
		}
		if d.n != len(m.set) {
			t.Fatalf("step %d: %d ids in the table, %d in the map", i, d.n, len(m.set))
		}
	}
	for i := range 3 * maxDroppedIDs {
		x := fmt.Sprintf("toolu_%d", i)
		if d.has(x) != m.has(x) {
			t.Fatalf("has(%s) = %v, the map says %v", x, d.has(x), m.has(x))
		}
	}
}

// TestDroppedIDsDeleteKeepsProbesWhole: taking a hash out of a run of
// colliding ones leaves the others found, however the run wraps round
// the table's end.
func TestDroppedIDsDeleteKeepsProbesWhole(t *testing.T) {
	for start := range minDroppedSlots {
		d := droppedIDs{slots: make([]uint64, minDroppedSlots)}
		// Hashes homed at start and start+1, and one homed after the
		// run: their slots are filled in probe order.
		hs := []uint64{uint64(start) + 64, uint64(start) + 128, uint64(start+1)%64 + 64, uint64(start) + 192, uint64(start+5)%64 + 64}
		for _, h := range hs {
			i, _ := d.find(h)
			d.slots[i] = h
			d.n++
		}
		for k, gone := range hs {
			d.delete(gone)
			for _, h := range hs[k+1:] {
				if _, ok := d.find(h); !ok {
					t.Fatalf("start %d: %d lost after deleting %v", start, h, hs[:k+1])
				}
			}
			if _, ok := d.find(gone); ok {
				t.Fatalf("start %d: %d still found after its delete", start, gone)
			}
		}
		if d.n != 0 || slices.ContainsFunc(d.slots, func(h uint64) bool { return h != 0 }) {
			t.Fatalf("start %d: the table is not empty: %v", start, d.slots)
		}
	}
}

// BenchmarkDroppedIDs measures what a session at its bounds asks of its
// dropped ids per call: claim's has of the new id, and the add of the
// call evicted, the set full (32,768 ids, the oldest forgotten per add);
// the table (fast) against the Go map it replaced (plain).
//
//	go test -run '^$' -bench DroppedIDs -count 5 ./coordinator/
func BenchmarkDroppedIDs(b *testing.B) {
	ids := make([]string, 4*maxDroppedIDs)
	for i := range ids {
		ids[i] = fmt.Sprintf("toolu_01%024d", i*7919)
	}
	var d droppedIDs
	var m mapDroppedIDs
	for _, id := range ids[:maxDroppedIDs] {
		d.add(id)
		m.add(id)
	}
	next := func(i *int) (string, string) {
		*i++
		return ids[*i%len(ids)], ids[(*i-1000)%len(ids)]
	}
	fi, pi := maxDroppedIDs, maxDroppedIDs
	benchpair.Run(b, func() {
		claimed, evicted := next(&fi)
		_ = d.has(claimed)
		d.add(evicted)
	}, func() {
		claimed, evicted := next(&pi)
		_ = m.has(claimed)
		m.add(evicted)
	})
}
