package policy

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/ignore"
	"github.com/toolgate/toolgate/internal/shellcmd"
)

// Rule lists and layers, as refusals name them.
const (
	listAllow = "allow"
	listAsk   = "ask"
	listDeny  = "deny"

	LayerManaged = "managed policy"
	layerSession = "session"
)

// Rule is one permission rule in Claude Code's syntax: a tool name
// ("read_file", "mcp__github", "mcp__*") optionally followed by content in
// parentheses: a command pattern for execute_command, a gitignore-style
// glob for tools that touch paths.
type Rule struct {
	Text  string
	list  string
	layer string

	tool       string // tool name pattern; "*" matches any run of characters
	content    string
	hasContent bool
	globs      *ignore.Matcher // content compiled as a path pattern
	// absolute marks a path pattern rooted at the file system's root
	// (Claude Code's //path and ~/path), matched against absolute paths.
	absolute bool
	// domain is the host of a "domain:" rule (web_fetch(domain:example.com));
	// "*.example.com" covers its subdomains.
	domain string
}

// DomainPrefix starts a rule's content that names a web host, as in
// Claude Code's WebFetch(domain:example.com).
const DomainPrefix = "domain:"

// String names the rule in refusals: `deny rule "read_file(.env)" (managed policy)`.
func (r *Rule) String() string {
	return fmt.Sprintf("%s rule %q (%s)", r.list, r.Text, r.layer)
}

// parseRule parses one rule text.
func parseRule(text, list, layer string) (*Rule, error) {
	t := strings.TrimSpace(text)
	r := &Rule{Text: t, list: list, layer: layer, tool: t}
	if i := strings.IndexByte(t, '('); i >= 0 {
		if !strings.HasSuffix(t, ")") {
			return nil, fmt.Errorf("rule %q: missing closing parenthesis", text)
		}
		r.tool, r.content, r.hasContent = t[:i], t[i+1:len(t)-1], true
		if strings.TrimSpace(r.content) == "" {
			return nil, fmt.Errorf("rule %q: empty parentheses; write the bare tool name to match every call", text)
		}
	}
	if r.tool == "" {
		return nil, fmt.Errorf("rule %q: no tool name", text)
	}
	for _, c := range r.tool {
		if !(c == '_' || c == '-' || c == '*' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return nil, fmt.Errorf("rule %q: tool name may hold only letters, digits, _, - and *", text)
		}
	}
	if strings.HasPrefix(r.tool, tool.MCPPrefix) && r.hasContent {
		return nil, fmt.Errorf("rule %q: MCP rules take no parentheses", text)
	}
	if d, ok := strings.CutPrefix(r.content, DomainPrefix); ok && r.hasContent {
		r.domain = strings.ToLower(strings.TrimSuffix(strings.TrimSpace(d), "."))
		if r.domain == "" || strings.ContainsAny(r.domain, "/:@ ") || strings.Contains(strings.TrimPrefix(r.domain, "*."), "*") {
			return nil, fmt.Errorf("rule %q: domain: takes a host name such as example.com or *.example.com", text)
		}
		return r, nil
	}
	if r.hasContent {
		var pattern string
		if pattern, r.absolute = pathPattern(r.content); pattern != "" {
			r.globs = ignore.NewMatcher(ignore.ParseRules(r.Text, "", []byte(pattern)))
		}
	}
	return r, nil
}

// pathPattern reads the prefixes Claude Code gives a path rule
// (code.claude.com/docs/en/permissions, "Read and Edit"): //path is an
// absolute path, ~/path one under the home directory, /path one from the
// project root, and ./path or path one from the current directory. For
// toolgate the project root and the current directory are the workspace,
// so ./path is anchored there as /path is; a bare path keeps gitignore's
// meaning (a name without a slash matches at any depth). The absolute
// forms come back rooted at "/" for matching against absolute paths; ""
// when the home directory is unknown, a pattern that matches nothing.
func pathPattern(content string) (pattern string, absolute bool) {
	switch {
	case strings.HasPrefix(content, "//"):
		return content[1:], true
	case strings.HasPrefix(content, "~/"):
		home, err := os.UserHomeDir()
		if err != nil || !filepath.IsAbs(home) {
			return "", true
		}
		return strings.TrimSuffix(filepath.ToSlash(home), "/") + content[1:], true
	case strings.HasPrefix(content, "./"):
		rest := content
		for strings.HasPrefix(rest, "./") {
			rest = strings.TrimLeft(rest[2:], "/")
		}
		return "/" + rest, false
	}
	return content, false
}

// matchesPath reports whether a content rule covers one path: its
// workspace-relative form, or its absolute one for an absolute pattern.
func (r *Rule) matchesPath(p PathRef) bool {
	if r.absolute {
		_, hit := r.globs.MatchLazy(strings.TrimPrefix(p.abs(), "/"), p.IsDir)
		return hit
	}
	_, hit := r.globs.MatchLazy(p.Rel, p.IsDir)
	return hit
}

// ParseRules parses a rule set's three lists; the first error wins.
func ParseRules(p api.Permissions, layer string) ([]*Rule, error) {
	var out []*Rule
	for _, l := range []struct {
		name  string
		rules []string
	}{{listDeny, p.Deny}, {listAsk, p.Ask}, {listAllow, p.Allow}} {
		for _, text := range l.rules {
			r, err := parseRule(text, l.name, layer)
			if err != nil {
				return nil, err
			}
			out = append(out, r)
		}
	}
	return out, nil
}

// ValidatePermissions checks every rule's syntax, for requests and config
// files; the error names the list, index and problem of each bad rule.
func ValidatePermissions(p api.Permissions) error {
	fields := map[string]string{}
	for _, l := range []struct {
		name  string
		rules []string
	}{{listDeny, p.Deny}, {listAsk, p.Ask}, {listAllow, p.Allow}} {
		for i, text := range l.rules {
			if _, err := parseRule(text, l.name, ""); err != nil {
				fields[fmt.Sprintf("permissions.%s[%d]", l.name, i)] = err.Error()
			}
		}
	}
	if len(fields) > 0 {
		return &api.Error{Code: api.CodeValidation, Message: "invalid permission rule", Fields: fields}
	}
	return nil
}

// MatchesName reports whether the rule's tool part names the call's tool.
func (r *Rule) MatchesName(s *Subject) bool {
	if rest, ok := strings.CutPrefix(r.tool, tool.MCPPrefix); ok {
		if s.Tool != tool.UseMCPTool {
			return false
		}
		server, tool, hasTool := strings.Cut(rest, "__")
		if !glob(server, s.MCPServer) {
			return false
		}
		return !hasTool || glob(tool, s.MCPTool)
	}
	for _, t := range RuleTools[r.tool] {
		if glob(t, s.Tool) {
			return true
		}
	}
	if glob(r.tool, s.Tool) {
		return true
	}
	for _, n := range s.Names {
		if glob(r.tool, n) {
			return true
		}
	}
	return false
}

// RuleTools maps the tool names of Claude Code's rule syntax
// (docs.anthropic.com/en/docs/claude-code/iam, "Tool-specific permission
// rules") onto the registry tools every dialect's calls run as, so that
// Bash(npm run test:*) or Edit(src/**) is the same policy whichever
// dialect the model speaks. As Claude Code documents, Read rules cover
// every tool that reads files and Edit rules every tool that edits them.
var RuleTools = map[string][]string{
	"Bash":         {"execute_command", "shell_session"},
	"Read":         {"read_file", "read_lines", "read_output", "list_files", "search_files", "list_code_definition_names", "glob_files", "grep_files", "list_tree"},
	"Edit":         {"replace_in_file", "write_to_file", "new_rule", "write_file", "edit_text", "notebook_edit", "apply_patch", "patch_files"},
	"Write":        {"write_to_file", "new_rule", "write_file"},
	"MultiEdit":    {"edit_text"},
	"NotebookEdit": {"notebook_edit"},
	"Glob":         {"glob_files"},
	"Grep":         {"grep_files"},
	"LS":           {"list_tree"},
	"WebFetch":     {"web_fetch"},
	"TodoWrite":    {"todo_write"},
	"BashOutput":   {"shell_output"},
	"KillShell":    {"kill_shell"},
	"Task":         {tool.SubagentPrefix + "*"},
	"WebSearch":    {"web_search"},
	// The Messages API's client tools, by the names its models call them.
	"bash":                        {"shell_session", "execute_command"},
	"str_replace_based_edit_tool": {"read_lines", "list_tree", "write_to_file", "edit_text"},
}

// matchesAny reports whether the rule covers any part of the call: any
// simple command of a command line, any path of a file call. Deny and ask
// rules use it, so one matching part decides for the whole.
func (r *Rule) matchesAny(s *Subject) bool {
	if !r.MatchesName(s) {
		return false
	}
	if !r.hasContent {
		return true
	}
	if r.domain != "" {
		return domainMatches(r.domain, s.Host)
	}
	if s.Command != nil {
		for _, c := range s.Command.Commands {
			if shellcmd.MatchDenyRule(r.content, c) {
				return true
			}
		}
		return false
	}
	for _, p := range s.Paths {
		if r.matchesPath(p) {
			return true
		}
	}
	return false
}

// domainMatches reports whether a rule's domain covers a host: the same
// name, or for "*.example.com" any name below example.com.
func domainMatches(domain, host string) bool {
	if host == "" {
		return false
	}
	if rest, ok := strings.CutPrefix(domain, "*."); ok {
		return strings.HasSuffix(host, "."+rest)
	}
	return host == domain
}

// glob matches a name pattern in which "*" is any run of characters.
func glob(pattern, name string) bool {
	if !strings.ContainsAny(pattern, "*") {
		return pattern == name
	}
	ok, err := path.Match(strings.NewReplacer("[", "\\[", "?", "\\?", "\\", "\\\\").Replace(pattern), name)
	return err == nil && ok
}
