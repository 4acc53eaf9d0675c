package policy

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/benchpair"
	"github.com/toolgate/toolgate/internal/ignore"
)

// BenchmarkStampWatch measures a call's check of the kept read answer
// (LinkCache.WithHardLinks) on the workspace of BenchmarkHardLinkCache
// (3,000 files, 166 directories) with Read(**/.env) alone and with 20
// read deny rules matching at any depth: the answer's stamps watched
// (tool.StampWatch, one read of an inotify instance) against the same
// answer kept as before, its stamps polled with one fstatat each
// (polledLinks), alternating, with the ratio.
func BenchmarkStampWatch(b *testing.B) {
	ws := linkBenchWorkspace(b)
	for _, rules := range []int{1, 20} {
		b.Run(fmt.Sprintf("deny=%d", rules), func(b *testing.B) {
			denials := []string{"**/.env"}
			for i := 1; i < rules; i++ {
				denials = append(denials, fmt.Sprintf("**/secret%d.key", i))
			}
			base := ignore.NewMatcher()
			hidden := base.WithRules(ignore.ParseRules("deny", "", []byte(strings.Join(denials, "\n")+"\n")))
			var lc LinkCache
			defer lc.Close()
			var polled polledLinks[*ignore.Matcher]
			walk := func(rec *linkStamps) *ignore.Matcher {
				return withNames(hidden, otherNames(ws, denialRoots(denials), matchedBy(hidden), rec))
			}
			// The walks are made and their answers kept before the timing.
			lc.WithHardLinks(ws, base, hidden, denials)
			polled.get(ws, hidden, denials, walk)
			if lc.read.polled != nil {
				b.Skipf("the answer's stamps are polled here, nothing to compare: %v", lc.read.polled)
			}
			benchpair.Run(b, func() {
				lc.WithHardLinks(ws, base, hidden, denials)
			}, func() {
				polled.get(ws, hidden, denials, walk)
			})
			if lc.read.walks != 1 || polled.walks != 1 {
				b.Fatalf("%d and %d walks, want one each", lc.read.walks, polled.walks)
			}
		})
	}
}

// BenchmarkStampWatchArming is what the watch adds to a call that walks
// again (a change was seen) on the same workspace: the walk, the watch
// armed over its stamps and the replaced watch closed (keptLinks.get),
// against the walk alone, alternating, with the ratio.
func BenchmarkStampWatchArming(b *testing.B) {
	ws := linkBenchWorkspace(b)
	denials := []string{"**/.env"}
	hidden := ignore.NewMatcher().WithRules(ignore.ParseRules("deny", "", []byte("**/.env\n")))
	walk := func() []tool.Stamp {
		rec := &linkStamps{since: time.Now().Add(-tool.StampRacy), euid: os.Geteuid()}
		withNames(hidden, otherNames(ws, denialRoots(denials), matchedBy(hidden), rec))
		return rec.stamps
	}
	var kept *tool.StampWatch
	defer func() { kept.Close() }()
	benchpair.Run(b, func() {
		stamps := walk()
		kept.Close()
		var err error
		if kept, err = ws.WatchStamps(stamps); err != nil {
			b.Skipf("the stamps are polled here, nothing to compare: %v", err)
		}
	}, func() {
		walk()
	})
}

// polledLinks is keptLinks as it was before tool.StampWatch, the
// baseline: its get checks every stamp with an fstatat on every call.
type polledLinks[T any] struct {
	mu      sync.Mutex
	ws      *tool.Workspace
	matcher *ignore.Matcher
	denials []string
	answer  T
	stamps  []tool.Stamp
	walks   int
}

func (k *polledLinks[T]) get(ws *tool.Workspace, matcher *ignore.Matcher, denials []string, walk func(*linkStamps) T) T {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.stamps != nil && k.ws == ws && k.matcher == matcher &&
		slices.Equal(k.denials, denials) && ws.StampsStand(k.stamps) {
		return k.answer
	}
	k.walks++
	rec := &linkStamps{since: time.Now().Add(-tool.StampRacy), euid: os.Geteuid()}
	answer := walk(rec)
	k.ws, k.matcher, k.denials, k.answer, k.stamps = ws, matcher, slices.Clone(denials), answer, rec.stamps
	if rec.spoiled || rec.stamps == nil {
		k.stamps = nil
	}
	return answer
}
