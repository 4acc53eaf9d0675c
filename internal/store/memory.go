package store

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Memory is the store of a throwaway run: nothing survives the process.
// It keeps only the most recent calls, for the audit log; sessions and
// edits already live in the coordinator's memory, so it does not copy
// them.
type Memory struct {
	max, maxBytes int
	seq           atomic.Int64

	mu     sync.Mutex
	calls  map[int64]Call
	order  []int64 // seqs, ascending
	bytes  int     // what the kept calls hold, as heldBytes counts
	closed bool
}

// What a memory store keeps by default: the last calls, up to this many
// and, together, about this many bytes (one call is always kept).
const (
	DefaultMemoryCalls = 10000
	DefaultMemoryBytes = 4 << 20
)

// NewMemory returns a memory store keeping at most max calls (the oldest
// go first; <= 0 means DefaultMemoryCalls) holding DefaultMemoryBytes.
func NewMemory(max int) *Memory {
	if max <= 0 {
		max = DefaultMemoryCalls
	}
	return &Memory{max: max, maxBytes: DefaultMemoryBytes, calls: map[int64]Call{}}
}

// callOverhead stands for a kept call's fixed fields in heldBytes.
const callOverhead = 256

// heldBytes is about how much memory a kept call holds.
func heldBytes(c *Call) int {
	return callOverhead + len(c.Input) + len(c.InputSHA256) + len(c.Result) + c.LaterBytes +
		len(c.ErrorCode) + len(c.Decision) + len(c.DecidedBy) + len(c.ApprovalReason)
}

// Apply records calls; other writes have nothing to keep.
func (m *Memory) Apply(_ Durability, ops ...Op) error {
	ops = fillCalls(ops)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
	}
	for _, o := range ops {
		switch o := o.(type) {
		case PutCall:
			c := o.Call
			c.Input = slices.Clone(c.Input)
			if old, ok := m.calls[c.Seq]; ok {
				m.bytes -= heldBytes(&old)
				c.Discarded = c.Discarded || old.Discarded // a deleted session's call stays discarded
			} else {
				// Kept in seq order (the order calls arrived), whatever
				// order they end in.
				i, _ := slices.BinarySearch(m.order, c.Seq)
				m.order = slices.Insert(m.order, i, c.Seq)
			}
			m.bytes += heldBytes(&c)
			m.calls[c.Seq] = c
		case DeleteSession:
			for seq, c := range m.calls {
				if c.SessionID == o.ID {
					c.Discarded = true
					m.calls[seq] = c
				}
			}
		case DiscardCalls:
			for seq, c := range m.calls {
				if c.SessionID == o.SessionID && slices.Contains(o.ToolUseIDs, c.ToolUseID) {
					c.Discarded = true
					m.calls[seq] = c
				}
			}
		}
	}
	for len(m.order) > m.max || m.bytes > m.maxBytes && len(m.order) > 1 {
		m.drop(m.order[0])
		m.order = m.order[1:]
	}
	return nil
}

// fillCalls is ops with every call's Fill done, before the store's lock is
// taken: a Fill works out a hash or a size, and the callers of Apply
// would queue on the lock meanwhile. ops itself is the caller's.
func fillCalls(ops []Op) []Op {
	var out []Op
	for i, o := range ops {
		if p, ok := o.(PutCall); ok && p.Call.Fill != nil {
			if out == nil {
				out = slices.Clone(ops)
			}
			p.Call.filled()
			out[i] = p
		}
	}
	if out == nil {
		return ops
	}
	return out
}

// drop forgets a kept call (its seq stays in order for the caller to remove).
func (m *Memory) drop(seq int64) {
	c := m.calls[seq]
	m.bytes -= heldBytes(&c)
	delete(m.calls, seq)
}

// NextSeq counts up from 1.
func (m *Memory) NextSeq() int64 { return m.seq.Add(1) }

// Sessions is empty: a memory store restores nothing.
func (m *Memory) Sessions() ([]Session, error) { return nil, nil }

// Edits is empty: a memory store restores nothing.
func (m *Memory) Edits() ([]Edit, error) { return nil, nil }

// Unfinished is empty: a memory store restores nothing.
func (m *Memory) Unfinished() ([]Call, error) { return nil, nil }

// CallIDs is empty: a memory store restores nothing.
func (m *Memory) CallIDs() (map[string][]string, error) { return nil, nil }

// FindCall finds nothing: the coordinator's own memory answers repeated
// ids while the process lives.
func (m *Memory) FindCall(string, string) (Call, bool, error) { return Call{}, false, nil }

// Audit pages through the kept calls, newest first.
func (m *Memory) Audit(q Query) (Page, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	limit := q.limit()
	var page Page
	for i := len(m.order) - 1; i >= 0; i-- {
		c := m.calls[m.order[i]]
		if !q.matches(c) {
			continue
		}
		if len(page.Calls) == limit {
			page.Next = page.Calls[limit-1].Seq
			break
		}
		page.Calls = append(page.Calls, c.Resolved())
	}
	return page, nil
}

// Prune drops kept calls older than before.
func (m *Memory) Prune(before time.Time) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var n int64
	kept := m.order[:0]
	for _, seq := range m.order {
		if c := m.calls[seq]; c.State == "done" && c.StartedAt.Before(before) {
			m.drop(seq)
			n++
			continue
		}
		kept = append(kept, seq)
	}
	m.order = kept
	return n, nil
}

// Close ends writes.
func (m *Memory) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	return nil
}
