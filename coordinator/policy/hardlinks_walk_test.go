package policy

import (
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/ignore"
)

// The uncached answer the tests and benchmarks hold LinkCache to.

// WithHardLinks returns hidden with the other names of the denied files
// (hidden's matches that denials added to base) that have several names,
// walking every time: what LinkCache.WithHardLinks answers while its kept
// answer stands.
func WithHardLinks(ws *tool.Workspace, base, hidden *ignore.Matcher, denials []string) *ignore.Matcher {
	if ws == nil || hidden == base {
		return hidden
	}
	return withNames(hidden, otherNames(ws, denialRoots(denials), func(p string) bool {
		_, hit := hidden.Match(p, false)
		return hit
	}, nil))
}
