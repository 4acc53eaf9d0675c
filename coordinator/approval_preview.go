package coordinator

import (
	"encoding/json"
	"io"
	"strings"

	"github.com/aymanbagabas/go-udiff"
	"github.com/toolgate/toolgate/api"
)

// maxPreviewFile bounds the current file read for a write's diff.
const maxPreviewFile = 1 << 20

// maxDiffLines bounds a preview diff.
const maxDiffLines = 2000

// preview shows what a call would do: a command line and its parts, the
// paths, and for a write of a whole file the diff against the current one.
// Other tools show their input.
func (c *Coordinator) preview(sub *subject, t *Tool, in any, raw []byte) api.Preview {
	var p api.Preview
	for _, r := range sub.paths {
		p.Paths = append(p.Paths, r.rel)
	}
	if sub.command != nil {
		p.Command = sub.line
		for _, cmd := range sub.command.Commands {
			p.Parts = append(p.Parts, api.CommandPart{Args: cmd.Args, Dir: cmd.Dir})
		}
		p.Risks = blockingRisks(sub.command)
		return p
	}
	if t.Writes && len(sub.paths) == 1 {
		var w struct {
			Content *string `json:"content"`
		}
		if json.Unmarshal(raw, &w) == nil && w.Content != nil {
			p.Diff = c.writeDiff(sub.paths[0].rel, *w.Content)
			return p
		}
	}
	p.Input = api.RawJSON(raw)
	return p
}

// writeDiff is the unified diff of replacing a file with content; a file
// that does not exist yet diffs against nothing.
func (c *Coordinator) writeDiff(rel, content string) string {
	old := ""
	if f, err := c.workspace.Root.Open(rel); err == nil {
		b, _ := io.ReadAll(io.LimitReader(f, maxPreviewFile+1))
		f.Close()
		if len(b) > maxPreviewFile {
			return "(the current file is larger than 1 MiB; no diff shown)"
		}
		old = string(b)
	}
	d := udiff.Unified("a/"+rel, "b/"+rel, old, content)
	lines := strings.SplitAfter(d, "\n")
	if len(lines) > maxDiffLines {
		d = strings.Join(lines[:maxDiffLines], "") + "... (diff truncated)\n"
	}
	return d
}

// rememberRules are the allow rules that cover exactly this call's shape:
// one per simple command for a command line, one per path for a file tool,
// the server and tool for MCP, else the bare tool name. A command whose
// words a rule cannot spell (spaces, "*"), or that has risky constructs
// (which no allow rule approves), gives none.
func rememberRules(sub *subject, t *Tool) []string {
	switch {
	case sub.command != nil:
		if len(blockingRisks(sub.command)) > 0 || len(sub.command.Commands) == 0 {
			return nil
		}
		var out []string
		for _, c := range sub.command.Commands {
			for _, a := range c.Args {
				if a == "" || strings.ContainsAny(a, " \t\n*") {
					return nil
				}
			}
			r := t.Name + "(" + strings.Join(c.Args, " ") + ")"
			if !contains(out, r) {
				out = append(out, r)
			}
		}
		return out
	case sub.tool == UseMCPTool:
		if sub.mcpServer == "" || sub.mcpTool == "" {
			return nil
		}
		return []string{mcpPrefix + sub.mcpServer + "__" + sub.mcpTool}
	case len(sub.paths) > 0:
		var out []string
		for _, p := range sub.paths {
			out = append(out, t.Name+"(/"+escapeGlob(p.rel)+")")
		}
		return out
	}
	return []string{t.Name}
}

// escapeGlob escapes a path so that, as a gitignore pattern, it matches
// only itself.
func escapeGlob(p string) string {
	var b strings.Builder
	for i, r := range p {
		if strings.ContainsRune(`*?[\`, r) || r == ' ' && i == len(p)-1 {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
