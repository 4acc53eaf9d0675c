package filememory

import (
	"context"
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
// up no read of another file. Every turn must end with EndRead.
func (m *Memory) QueueRead(key string) uint64 {
	if m == nil {
		return 0
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.readTurns == nil {
		m.readTurns = map[uint64]readTurn{}
	}
	m.turnSeq++
	m.readTurns[m.turnSeq] = readTurn{key: key, done: make(chan struct{})}
	return m.turnSeq
}

// readTurn is a queued read not yet counted.
type readTurn struct {
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
	if t, ok := m.readTurns[turn]; ok {
		close(t.done)
		delete(m.readTurns, turn)
		if len(m.readTurns) == 0 {
			// An emptied map keeps its slots: a session between
			// reads holds none (BenchmarkManySessionsMemory).
			m.readTurns = nil
		}
	}
}

// waitTurn waits until every earlier turn of the same file has ended.
func (m *Memory) waitTurn(ctx context.Context, turn uint64) {
	m.mu.Lock()
	mine := m.readTurns[turn]
	var earlier []chan struct{}
	for n, t := range m.readTurns {
		if n < turn && t.key == mine.key {
			earlier = append(earlier, t.done)
		}
	}
	m.mu.Unlock()
	if len(earlier) == 0 {
		return
	}
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
// turn.
func (m *Memory) CountRead(ctx context.Context, turn uint64, key string, mtime time.Time) int {
	if m == nil {
		return 1
	}
	if turn != 0 {
		m.waitTurn(ctx, turn)
		defer m.EndRead(turn)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
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
