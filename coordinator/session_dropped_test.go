package coordinator

import (
	"fmt"
	"testing"
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
	if len(d.set) != maxDroppedIDs || len(d.ring) != maxDroppedIDs {
		t.Errorf("holds %d ids in a ring of %d, want %d", len(d.set), len(d.ring), maxDroppedIDs)
	}
	d.remove(id(7))
	if d.has(id(7)) {
		t.Error("a removed id is still remembered")
	}
}
