package policy

import (
	"slices"
	"sync"

	"github.com/toolgate/toolgate/internal/ignore"
)

// readDenialMemo keeps the matchers WithReadDenials made lately. Every
// call's policy stage asks for its ignore rules with the read denials
// added, and making them parses each deny rule again (its text, its
// pattern, a new matcher): 25-30 µs per call with two rules. The
// answer only changes with the ignore rules in force (a new matcher
// when an ignore file changes) and the rules of the layers (parsed
// again, into new rules, when a session's permissions change), so it
// is kept by their identity (BenchmarkPolicyStage/read_file,
// ./coordinator/; docs/benchmarks.md).
type readDenialMemo struct {
	mu      sync.Mutex
	entries [readDenialMemos]readDenialEntry
	next    int // the entry replaced next
}

// readDenialMemos is how many sessions' matchers are kept at once.
const readDenialMemos = 8

type readDenialEntry struct {
	base             *ignore.Matcher
	managed, session []*Rule
	out              *ignore.Matcher
}

// WithReadDenials is the package's WithReadDenials of the managed rules
// and a session's, made once for the same ignore rules and rule slices.
func (p *Policy) WithReadDenials(m *ignore.Matcher, session []*Rule) *ignore.Matcher {
	memo := &p.readDenials
	memo.mu.Lock()
	for _, e := range memo.entries {
		if e.out != nil && e.base == m && slices.Equal(e.managed, p.Managed) && slices.Equal(e.session, session) {
			memo.mu.Unlock()
			return e.out
		}
	}
	memo.mu.Unlock()
	out := WithReadDenials(m, p.Managed, session)
	memo.mu.Lock()
	memo.entries[memo.next] = readDenialEntry{base: m, managed: p.Managed, session: session, out: out}
	memo.next = (memo.next + 1) % readDenialMemos
	memo.mu.Unlock()
	return out
}
