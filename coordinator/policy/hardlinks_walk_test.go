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
	return withNames(hidden, otherNames(ws, denialRoots(denials), matchedBy(hidden), nil))
}

// EditLinkDenial is LinkCache.EditLinkDenial walking every time, as it
// did before its answer was kept.
func EditLinkDenial(ws *tool.Workspace, t *tool.Tool, sub *Subject, patterns []string) string {
	return editLinkDenial(ws, t, sub, patterns, func(ws *tool.Workspace, patterns []string) []string {
		return editDeniedLinks(ws, editDenials(patterns), denialRoots(patterns))
	})
}

// editDeniedLinks are the other names in the workspace of the files m
// denies editing that have several names, walked for.
func editDeniedLinks(ws *tool.Workspace, m *ignore.Matcher, roots []string) []string {
	return otherNames(ws, roots, matchedBy(m), nil)
}

// EditDeniedPaths is LinkCache.EditDeniedPaths walking every time.
func EditDeniedPaths(ws *tool.Workspace, patterns []string) []string {
	if ws == nil || len(patterns) == 0 {
		return nil
	}
	return editDeniedPaths(ws, patterns, nil)
}
