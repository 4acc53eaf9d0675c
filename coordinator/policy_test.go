package coordinator

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/api"
)

// TestCommandConstructsNeverAutoApproved runs every construct of the
// security model under allow rules that match each command's words: none
// may run without approval.
func TestCommandConstructsNeverAutoApproved(t *testing.T) {
	p := newTestPolicy(t, Config{}, map[string]string{"a.txt": "a"})
	s := p.session(t, api.Permissions{Allow: []string{
		"execute_command(echo *)", "execute_command(ls *)", "execute_command(cat *)", "execute_command(git *)",
		"execute_command(find *)", "execute_command(xargs *)", "execute_command(bash *)", "execute_command(sh *)",
		"execute_command(eval *)", "execute_command(env *)",
	}})
	lines := map[string]string{
		"command substitution":  "echo $(rm -rf ~)",
		"backticks":             "echo `rm -rf ~`",
		"process substitution":  "cat <(rm -rf ~)",
		"output process subst":  "echo x > >(sh)",
		"redirection":           "echo x > a.txt",
		"append redirection":    "echo x >> a.txt",
		"input redirection":     "cat < a.txt",
		"heredoc":               "cat <<EOF\nx\nEOF",
		"assignment prefix":     "PAGER=sh git log",
		"bare assignment":       "X=1",
		"subshell":              "(ls)",
		"block":                 "{ ls; }",
		"eval":                  "eval ls",
		"bash -c":               "bash -c ls",
		"sh -c":                 "sh -c 'ls'",
		"xargs":                 "ls | xargs rm",
		"find -exec":            "find . -exec rm {} ;",
		"find -execdir":         "find . -execdir rm {} +",
		"find -delete":          "find . -delete",
		"git -c":                "git -c core.pager=sh log",
		"carriage return":       "ls\rrm -rf ~",
		"control char":          "ls \x01",
		"parse error":           "ls && (",
		"background":            "ls &",
		"parameter expansion":   "echo $HOME",
		"tilde":                 "ls ~",
		"brace expansion":       "echo {a,b}",
		"function":              "f() { ls; }; f",
		"if":                    "if true; then ls; fi",
		"wrapper":               "env ls",
		"not allowed part":      "ls && rm -rf x",
		"not allowed in pipe":   "ls | rm -rf x",
		"not allowed after nl":  "ls\nrm -rf x",
		"not allowed after or":  "ls || rm -rf x",
		"not allowed after ;":   "ls; rm -rf x",
		"outside absolute path": "cat /etc/passwd",
		"outside relative path": "cat ../x",
	}
	for name, line := range lines {
		t.Run(name, func(t *testing.T) {
			got, _, text := p.decideOnly(t, s, use("t_"+name, "execute_command", cmd(line)))
			if got == "allow" {
				t.Errorf("%q: got allow, want ask or deny (%s)", line, text)
			}
		})
	}
}

func TestCompoundCommandRules(t *testing.T) {
	p := newTestPolicy(t, Config{Permissions: api.Permissions{Deny: []string{"execute_command(rm:*)"}}}, nil)
	s := p.session(t, api.Permissions{Allow: []string{"execute_command(echo *)", "execute_command(npm run test:*)", "execute_command(git status)", "execute_command(touch a)"}})
	long := strings.Repeat("echo ok && ", 300) + "rm -rf x"
	tests := []struct{ name, line, want string }{
		{"long chain ending denied", long, "deny"},
		{"denied first", "rm x; echo a", "deny"},
		{"denied in pipe", "echo a | rm x", "deny"},
		{"denied inside eval", "eval 'rm x'", "deny"},
		{"denied under wrapper", "sudo rm x", "deny"},
		{"denied inside bash -c", "bash -c 'echo a; rm x'", "deny"},
		{"every part allowed", "echo a && git status; npm run test:unit", "allow"},
		{"exact rule exact", "git status", "allow"},
		{"exact rule", "touch a", "allow"},
		{"exact rule with more words", "touch a b", "ask"},
		{"prefix word boundary", "npm run testing", "ask"},
		{"prefix bare", "npm run test", "allow"},
		{"one part not allowed", "echo a && touch b", "ask"},
		{"prefix rule is not a bypass", "npm run test:unit; touch b", "ask"},
		{"quoted words", "'g'it \"status\"", "allow"},
		// As Claude Code judges a compound command: the parts no rule
		// names may be read-only commands.
		{"allowed part with read-only parts", "touch a && ls -la && wc -l a", "allow"},
		{"allowed part with a part that writes", "touch a && cp a b", "ask"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, text := p.decideOnly(t, s, use("c_"+tt.name, "execute_command", cmd(tt.line)))
			if got != tt.want {
				t.Errorf("%.60q: got %s, want %s (%s)", tt.line, got, tt.want, text)
			}
		})
	}
}

func TestDefaults(t *testing.T) {
	p := newTestPolicy(t, Config{}, map[string]string{"a.txt": "a", "src/x.go": "x"})
	s := p.session(t, api.Permissions{})
	tests := []struct {
		name string
		use  api.ToolUse
		want string
	}{
		{"read allowed", use("d1", "read_file", map[string]any{"path": "a.txt"}), "allow"},
		{"write asks", use("d2", "write_to_file", map[string]any{"path": "a.txt", "content": "b"}), "ask"},
		{"read-only command", use("d3", "execute_command", cmd("ls -la && git status && wc -l a.txt")), "allow"},
		{"read-only command the model flags", use("d4", "execute_command", map[string]any{"command": "ls", "requires_approval": true}), "ask"},
		{"other command asks", use("d5", "execute_command", cmd("touch b")), "ask"},
		{"mcp asks", use("d6", "mcp__github__create_issue", map[string]any{}), "ask"},
		{"mcp autoApprove", use("d7", "mcp__docs__search", map[string]any{}), "allow"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, _, text := p.decideOnly(t, s, tt.use); got != tt.want {
				t.Errorf("got %s, want %s (%s)", got, tt.want, text)
			}
		})
	}
}

func TestRuleSyntax(t *testing.T) {
	p := newTestPolicy(t, Config{Permissions: api.Permissions{
		Deny: []string{"read_file(.env)", "mcp__evil", "write_to_file(**/*.pem)"},
		Ask:  []string{"read_file(private/**)"},
	}}, map[string]string{".env": "k", "sub/.env": "k", "private/a": "a", "src/a.go": "a", "docs/a.md": "a"})
	s := p.session(t, api.Permissions{Allow: []string{"write_to_file(src/**)", "mcp__github__get_*", "replace_in_file(**/*.go)"}})
	tests := []struct {
		name string
		use  api.ToolUse
		want string
	}{
		{"path deny root", use("r1", "read_file", map[string]any{"path": ".env"}), "deny"},
		{"path deny any depth", use("r2", "read_file", map[string]any{"path": "sub/.env"}), "deny"},
		{"path deny through dot dot", use("r3", "read_file", map[string]any{"path": "src/../.env"}), "deny"},
		{"path ask", use("r4", "read_file", map[string]any{"path": "private/a"}), "ask"},
		{"path allow", use("r5", "write_to_file", map[string]any{"path": "src/a.go", "content": "x"}), "allow"},
		{"path allow deep", use("r6", "write_to_file", map[string]any{"path": "src/b/c.go", "content": "x"}), "allow"},
		{"path not allowed", use("r7", "write_to_file", map[string]any{"path": "docs/a.md", "content": "x"}), "ask"},
		{"glob deny beats allow", use("r8", "write_to_file", map[string]any{"path": "src/k.pem", "content": "x"}), "deny"},
		{"mcp server deny", use("r9", "mcp__evil__anything", map[string]any{}), "deny"},
		{"mcp tool wildcard allow", use("r10", "mcp__github__get_issue", map[string]any{}), "allow"},
		{"mcp tool not matched", use("r11", "mcp__github__delete_repo", map[string]any{}), "ask"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, rec, text := p.decideOnly(t, s, tt.use)
			if got != tt.want {
				t.Errorf("got %s, want %s (%s)", got, tt.want, text)
			}
			if got == "deny" && (!strings.Contains(text, "rule") || !strings.Contains(text, "managed policy")) {
				t.Errorf("denial %q does not name the rule and its layer", text)
			}
			_ = rec
		})
	}
}

// TestClaudeCodePathRules follows the path forms of Claude Code's Read and
// Edit rules (code.claude.com/docs/en/permissions, "Read and Edit"):
// //path from the file system's root, ~/path from the home directory,
// /path from the project root, ./path and path from the current
// directory (the workspace), gitignore patterns throughout.
func TestClaudeCodePathRules(t *testing.T) {
	p := newTestPolicy(t, Config{}, map[string]string{".env": "k", "sub/.env": "k", "secret/a": "a", "top.txt": "t", "sub/top.txt": "t",
		"src/a.go": "a", "docs/a.md": "a", "mine.txt": "m", "sub/mine.txt": "m"})
	t.Setenv("HOME", filepath.Dir(p.dir))
	s := p.session(t, api.Permissions{
		Deny: []string{"Read(./.env)", "Read(//" + strings.TrimPrefix(p.dir, "/") + "/secret/**)", "Read(/top.txt)",
			"Read(~/" + filepath.Base(p.dir) + "/mine.txt)"},
		Allow: []string{"Edit(./src/**)"},
	})
	for _, tc := range []struct {
		name string
		use  api.ToolUse
		want string
	}{
		{"./.env: the workspace's .env", use("cp1", "read_file", map[string]any{"path": ".env"}), "deny"},
		{"./.env: not a deeper one", use("cp2", "read_file", map[string]any{"path": "sub/.env"}), "allow"},
		{"//absolute", use("cp3", "read_file", map[string]any{"path": "secret/a"}), "deny"},
		{"//absolute, by absolute path", use("cp4", "read_file", map[string]any{"path": p.dir + "/secret/a"}), "deny"},
		{"/ from the project root", use("cp5", "read_file", map[string]any{"path": "top.txt"}), "deny"},
		{"/ not deeper", use("cp6", "read_file", map[string]any{"path": "sub/top.txt"}), "allow"},
		{"~/ from home", use("cp7", "read_file", map[string]any{"path": "mine.txt"}), "deny"},
		{"~/ not deeper", use("cp8", "read_file", map[string]any{"path": "sub/mine.txt"}), "allow"},
		{"./src/** allows", use("cp9", "write_to_file", map[string]any{"path": "src/a.go", "content": "x"}), "allow"},
		{"./src/** allows nothing else", use("cp10", "write_to_file", map[string]any{"path": "docs/a.md", "content": "x"}), "ask"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, _, text := p.decideOnly(t, s, tc.use); got != tc.want {
				t.Errorf("got %s, want %s (%s)", got, tc.want, text)
			}
		})
	}
}

// TestClaudeCodeBashWildcards: deny rules with Claude Code's wildcards
// (code.claude.com/docs/en/permissions, "Wildcard patterns": "*" spans
// spaces) deny what they deny in Claude Code, whichever tool runs the
// command.
func TestClaudeCodeBashWildcards(t *testing.T) {
	p := newTestPolicy(t, Config{PolicyConfig: PolicyConfig{AllowAll: true}, Permissions: api.Permissions{
		Deny: []string{"Bash(git push*)", "Bash(rm*)"}}}, nil)
	s := p.session(t, api.Permissions{})
	for i, tc := range []struct {
		line, want string
	}{
		{"git push origin main", "deny"},
		{"git status && git push --force", "deny"},
		{"rm -rf build", "deny"},
		{"git pull", "allow"},
		{"echo rm", "allow"},
	} {
		t.Run(tc.line, func(t *testing.T) {
			if got, _, text := p.decideOnly(t, s, use(fmt.Sprintf("bw%d", i), "execute_command", cmd(tc.line))); got != tc.want {
				t.Errorf("got %s, want %s (%s)", got, tc.want, text)
			}
		})
	}
}
