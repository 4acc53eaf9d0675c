package coordinator

import "hash/maphash"

// mapDroppedIDs is droppedIDs as it was, its hashes in a Go map: the
// baseline of BenchmarkDroppedIDs and the reference of
// TestDroppedIDsAgreeWithAMap.
type mapDroppedIDs struct {
	set  map[uint64]struct{}
	ring []uint64 // the set's hashes, oldest at next once full
	next int
}

func (d *mapDroppedIDs) add(id string) {
	h := maphash.String(droppedSeed, id)
	if _, ok := d.set[h]; ok {
		return
	}
	if d.set == nil {
		d.set = map[uint64]struct{}{}
	}
	if len(d.ring) < maxDroppedIDs {
		d.ring = append(d.ring, h)
	} else {
		delete(d.set, d.ring[d.next])
		d.ring[d.next] = h
		d.next = (d.next + 1) % maxDroppedIDs
	}
	d.set[h] = struct{}{}
}

func (d *mapDroppedIDs) remove(id string) {
	delete(d.set, maphash.String(droppedSeed, id))
}

func (d *mapDroppedIDs) has(id string) bool {
	if len(d.set) == 0 {
		return false
	}
	_, ok := d.set[maphash.String(droppedSeed, id)]
	return ok
}
