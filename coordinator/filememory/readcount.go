package filememory

import (
	"context"
	"slices"
	"time"
)

// readTurnWait bounds how long a read waits for the reads queued before
// it to be counted: a safety net only, since every queued call ends.
const readTurnWait = time.Minute

// maxReadCounts bounds the files whose reads one session counts; past it
// the counts start over.
const maxReadCounts = 10000

// readCount is what Cline's ReadFileToolHandler (v4.0.12) keeps of each
// file in its fileReadCache: how often it was read, and its mtime then.
type readCount struct {
	n     int
	mtime time.Time
}

// QueueRead gives a call that counts reads of the file key its turn, in
// the order the calls were queued (the model's block order). Cline runs
// one call after the other; toolgate runs reads side by side, and the
// turns keep the counts what Cline's order gives. Only reads of the same
// file wait for each other, so a read held up (by an approval, say) holds
// up no read of another file. Every turn must end with EndRead or
// CountRead.
func (m *Memory) QueueRead(key string) uint64 {
	if m == nil {
		return 0
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.readTurns == nil {
		m.readTurns = m.firstTurn[:0]
	}
	m.turnSeq++
	m.readTurns = append(m.readTurns, readTurn{seq: m.turnSeq, key: key})
	return m.turnSeq
}

// readTurn is a queued read not yet counted. done is made when a later
// read of the same file waits for it, and closed when it ends.
type readTurn struct {
	seq  uint64
	key  string
	done chan struct{}
}

// EndRead ends a turn QueueRead gave; ending it twice does nothing.
func (m *Memory) EndRead(turn uint64) {
	if m == nil || turn == 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.endTurnLocked(turn)
}

// endTurnLocked ends a turn, its waiters woken once m.mu is unlocked.
func (m *Memory) endTurnLocked(turn uint64) {
	i := slices.IndexFunc(m.readTurns, func(t readTurn) bool { return t.seq == turn })
	if i < 0 {
		return
	}
	if done := m.readTurns[i].done; done != nil {
		close(done)
	}
	m.readTurns = slices.Delete(m.readTurns, i, i+1)
	if len(m.readTurns) == 0 {
		// Turns that outgrew the first slot are dropped with them:
		// a session between reads holds no more than that slot
		// (BenchmarkManySessionsMemory).
		m.readTurns, m.firstTurn = nil, [1]readTurn{}
	}
}

// earlierTurnsLocked are the channels to wait on before turn is counted:
// those of the turns of the same file queued before it.
func (m *Memory) earlierTurnsLocked(turn uint64) []chan struct{} {
	i := slices.IndexFunc(m.readTurns, func(t readTurn) bool { return t.seq == turn })
	if i < 0 {
		return nil
	}
	var earlier []chan struct{}
	for j := range m.readTurns[:i] {
		t := &m.readTurns[j]
		if t.key == m.readTurns[i].key {
			if t.done == nil {
				t.done = make(chan struct{})
			}
			earlier = append(earlier, t.done)
		}
	}
	return earlier
}

// waitTurns waits until each of earlier is closed, ctx ends or
// readTurnWait has passed.
func waitTurns(ctx context.Context, earlier []chan struct{}) {
	timer := time.NewTimer(readTurnWait)
	defer timer.Stop()
	for _, ch := range earlier {
		select {
		case <-ch:
		case <-ctx.Done():
			return
		case <-timer.C:
			return
		}
	}
}

// CountRead records a successful read of a file (key is Cline's cache key,
// the path in lower case) whose mtime is mtime, and returns how often the
// session has now read it unchanged: 1 the first time and after the file
// changed, was edited by a tool, or a command ran. A read with a turn
// (QueueRead) is counted after the reads queued before it, and ends its
// turn. A read that waits for none is counted, and its turn ended, under
// one lock.
func (m *Memory) CountRead(ctx context.Context, turn uint64, key string, mtime time.Time) int {
	if m == nil {
		return 1
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if turn != 0 {
		if earlier := m.earlierTurnsLocked(turn); len(earlier) > 0 {
			m.mu.Unlock()
			waitTurns(ctx, earlier)
			m.mu.Lock()
		}
		m.endTurnLocked(turn)
	}
	if m.reads == nil || len(m.reads) >= maxReadCounts {
		m.reads = map[string]*readCount{}
	}
	c, ok := m.reads[key]
	switch {
	case !ok:
		c = &readCount{n: 1, mtime: mtime}
		m.reads[key] = c
	case c.mtime.Equal(mtime):
		c.n++
	default:
		*c = readCount{n: 1, mtime: mtime}
	}
	return c.n
}

// ForgetRead starts a file's read count over, as Cline does after its own
// edit of the file.
func (m *Memory) ForgetRead(key string) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.reads, key)
}

// ForgetReads starts every read count over, as Cline does after a command
// ran: a command may change any file.
func (m *Memory) ForgetReads() {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reads = nil
}
