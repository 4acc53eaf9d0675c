package coordinator

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/policy"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/benchpair"
	"github.com/toolgate/toolgate/internal/ignore"
)

// oneKBWorkspace is a workspace holding one_kb.txt, 1 KB of 64 lines,
// closed when the benchmark ends.
func oneKBWorkspace(b *testing.B) *tool.Workspace {
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "one_kb.txt"), []byte(strings.Repeat("0123456789abcde\n", 64)), 0o644); err != nil {
		b.Fatal(err)
	}
	ws, err := tool.OpenWorkspace(dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ws.Close() })
	return ws
}

// BenchmarkReadPolicy times the policy's judgement of read_file of a
// 1 KB file (authorize: the subject, ignore rules, the decision, the
// denials beyond the rules), as the pipeline makes it (the paths listed
// before), under the default config (no rule), under allow_all (as
// bench/peers runs toolgate) and with 40 rules of the session's own (20 edit denials, 20 allows of commands: none can apply
// to a read), side by side with the
// judgement as it was (authorizeBefore): the session locked three times
// for its mode and rules, the denials beyond the rules worked out for
// every call whatever it does, the default verdict's audit text (and
// allow_all's) made on every read.
//
//	go test -run '^$' -bench ReadPolicy -benchtime 200000x -count 3 ./coordinator/
func BenchmarkReadPolicy(b *testing.B) {
	ws := oneKBWorkspace(b)
	c := New(Options{Workspace: ws, Tools: policyTools(&ran{}), Config: DefaultConfig()})
	defer c.Close()
	plain, err := c.Sessions().Get(api.DefaultSessionID)
	if err != nil {
		b.Fatal(err)
	}
	var own api.Permissions
	for i := range 20 {
		own.Deny = append(own.Deny, fmt.Sprintf("write_to_file(generated%d/**)", i))
		own.Allow = append(own.Allow, fmt.Sprintf("execute_command(tool%d *)", i))
	}
	withRules, err := c.Sessions().Create(api.ModeAct, own)
	if err != nil {
		b.Fatal(err)
	}
	u := use("b1", "read_file", map[string]any{"path": "one_kb.txt"})
	t, _ := c.registry.lookup(u.Name)
	in, err := DecodeInput(t, c.validate, u.Input)
	if err != nil {
		b.Fatal(err)
	}
	paths := t.Paths(in)
	allowAllCfg := DefaultConfig()
	allowAllCfg.AllowAll = true
	allowAll := New(Options{Workspace: ws, Tools: policyTools(&ran{}), Config: allowAllCfg})
	defer allowAll.Close()
	underAllowAll, err := allowAll.Sessions().Get(api.DefaultSessionID)
	if err != nil {
		b.Fatal(err)
	}
	for _, sess := range []struct {
		name string
		c    *Coordinator
		s    *Session
	}{{"rules=0", c, plain}, {"session_rules=40", c, withRules}, {"allow_all", allowAll, underAllowAll}} {
		c := sess.c
		b.Run(sess.name, func(b *testing.B) {
			judge := func(authorize func(*Session, *tool.Tool, any, json.RawMessage, []string) (*outcome, gate)) func() {
				return func() {
					if out, g := authorize(sess.s, t, in, u.Input, paths); out != nil || g.decision != "allow" {
						b.Fatalf("not allowed: %+v", g)
					}
				}
			}
			benchpair.Run(b, judge(c.authorize), judge(c.authorizeBefore))
		})
	}
}

// TestAuthorizeAsBefore: the policy's judgement passes over what cannot
// apply and reads the session once, and judges every call as the
// judgement before did (authorizeBefore): reads, writes, listings and
// command lines with and without output redirections, under no rule,
// deny, ask and allow rules for reading and editing, in act and plan
// mode, with an ignore file and a hard link to a denied file.
func TestAuthorizeAsBefore(t *testing.T) {
	p := newTestPolicy(t, Config{Permissions: api.Permissions{Deny: []string{"read_file(managed_secret.txt)"}}}, map[string]string{
		"a.txt": "a", "src/main.go": "package main", ".env": "X=1", "secret/key.txt": "k", "notes.txt": "n",
		"managed_secret.txt": "m", ".clineignore": "ignored/\n", "ignored/x.txt": "x",
	})
	if err := os.Link(filepath.Join(p.dir, "secret/key.txt"), filepath.Join(p.dir, "key_link.txt")); err != nil {
		t.Fatal(err)
	}
	noManaged := newTestPolicy(t, Config{}, map[string]string{"a.txt": "a", "src/main.go": "package main"})
	uses := []api.ToolUse{
		use("r1", "read_file", map[string]any{"path": "a.txt"}),
		use("r2", "read_file", map[string]any{"path": ".env"}),
		use("r3", "read_file", map[string]any{"path": "secret/key.txt"}),
		use("r4", "read_file", map[string]any{"path": "key_link.txt"}),
		use("r5", "read_file", map[string]any{"path": "ignored/x.txt"}),
		use("r6", "read_file", map[string]any{"path": "managed_secret.txt"}),
		use("r7", "read_file", map[string]any{"path": "../outside.txt"}),
		use("w1", "write_to_file", map[string]any{"path": "src/main.go", "content": "x"}),
		use("w2", "write_to_file", map[string]any{"path": "a.txt", "content": "x"}),
		use("w3", "write_to_file", map[string]any{"path": "key_link.txt", "content": "x"}),
		use("l1", "list_files", map[string]any{"path": "."}),
		use("c1", "execute_command", cmd("cat a.txt")),
		use("c2", "execute_command", cmd("echo x > src/main.go")),
		use("c3", "execute_command", cmd("echo x > a.txt")),
		use("c4", "execute_command", cmd("cat secret/key.txt")),
		use("c5", "execute_command", cmd("rm -rf build")),
	}
	for _, perms := range []api.Permissions{
		{},
		{Deny: []string{"read_file(secret/**)"}},
		{Deny: []string{"write_to_file(src/**)"}},
		{Deny: []string{"write_to_file(secret/key.txt)"}},
		{Ask: []string{"read_file(a.txt)"}, Allow: []string{"write_to_file(a.txt)", "execute_command(rm:*)"}},
		{Deny: []string{"read_file(.env)", "execute_command(rm:*)"}, Allow: []string{"read_file(**)"}},
	} {
		for _, tp := range []*testPolicy{p, noManaged} {
			for _, mode := range []api.Mode{api.ModeAct, api.ModePlan} {
				s := tp.session(t, perms)
				s.Update(api.UpdateSessionRequest{Mode: mode})
				for _, u := range uses {
					tl, _ := tp.c.registry.lookup(u.Name)
					in, err := DecodeInput(tl, tp.c.validate, u.Input)
					if err != nil {
						t.Fatal(err)
					}
					out, g := tp.c.authorize(s, tl, in, u.Input, tl.Paths(in))
					wantOut, want := tp.c.authorizeBefore(s, tl, in, u.Input, tl.Paths(in))
					if !reflect.DeepEqual(out, wantOut) || !sameGate(g, want) {
						t.Errorf("%v, mode %s, %s %s: judged %+v %+v, before %+v %+v", perms, mode, u.Name, u.Input, out, g, wantOut, want)
					}
				}
			}
		}
	}
}

// sameGate compares two gates: the same decision, asking verdict and
// ignore rules (a matcher with a denied file's other names is made
// again while the workspace is too new to keep it: the same answers for
// every file the test makes); the subjects alike.
func sameGate(a, b gate) bool {
	for _, rel := range []string{"a.txt", "src/main.go", ".env", "secret/key.txt", "key_link.txt", "notes.txt", "managed_secret.txt", "ignored/x.txt"} {
		ra, hitA := a.ignored.Match(rel, false)
		rb, hitB := b.ignored.Match(rel, false)
		if hitA != hitB || ra != rb {
			return false
		}
	}
	return a.decision == b.decision && a.decidedBy == b.decidedBy && (a.ignored == nil) == (b.ignored == nil) &&
		reflect.DeepEqual(a.ask, b.ask) && (a.sub == nil) == (b.sub == nil) &&
		(a.sub == nil || a.sub.Tool == b.sub.Tool && len(a.sub.Paths) == len(b.sub.Paths))
}

// authorizeBefore is Coordinator.authorize as it was: the session's mode
// read twice and its rules twice, each under the lock, and the denials
// beyond the rules worked out whatever the call (denialsBeyondRulesBefore).
// The baseline of BenchmarkReadPolicy and TestAuthorizeAsBefore.
func (c *Coordinator) authorizeBefore(s *Session, t *tool.Tool, in any, raw json.RawMessage, paths []string) (*outcome, gate) {
	sub, line := c.buildSubject(t, in, raw, paths)
	m := c.ignoreMatcher()
	if parts, blocked := c.ignoreBlock(m, sub); blocked {
		out := failure(api.StatusDenied, api.ToolCodeIgnored, parts[0])
		for _, p := range parts[1:] {
			out.result.Content = append(out.result.Content, api.TextContent(p))
		}
		return &out, gate{decision: "deny", decidedBy: "ignore rules"}
	}
	if sub.BadCwd != nil {
		code := api.ToolCodeOutside
		var te *tool.ToolError
		if errors.As(sub.BadCwd, &te) {
			code = te.Code
		}
		out := failure(api.StatusDenied, code, "cwd: "+sub.BadCwd.Error())
		return &out, gate{}
	}
	if s.Mode() == api.ModePlan {
		if msg, refused := policy.PlanModeRefusal(t, sub); refused {
			out := failure(api.StatusDenied, api.ToolCodePlanMode, msg)
			return &out, gate{decision: "deny", decidedBy: "plan mode"}
		}
	}
	g := gate{sub: sub, ignored: m}
	v := c.policy.Decide(sub, t, s.permRules(), line.RequiresApproval)
	if v.Decision != policy.Deny {
		v = c.policy.RepositoryAsks(sub, m, v)
	}
	hidden, stop, denied := c.denialsBeyondRulesBefore(s, t, sub, m, v)
	if stop != nil {
		return stop, denied
	}
	g.ignored = hidden
	switch v.Decision {
	case policy.Deny:
		out := failure(api.StatusDenied, api.ToolCodeDenied, "Denied: "+v.Reason+".")
		return &out, gate{decision: "deny", decidedBy: decidedByRuleBefore(v)}
	case policy.Ask:
		if m := s.Mode(); policy.ModeAllows(m, v, t, sub) {
			g.decision, g.decidedBy = "allow", "mode: "+string(m)
			return nil, g
		}
		ask := v
		g.ask = &ask
	}
	if g.ask == nil {
		g.decision, g.decidedBy = "allow", decidedByRuleBefore(v)
	}
	return nil, g
}

// denialsBeyondRulesBefore is Coordinator.denialsBeyondRules as it was:
// every step taken for every call.
func (c *Coordinator) denialsBeyondRulesBefore(s *Session, t *tool.Tool, sub *policy.Subject, m *ignore.Matcher, v policy.Verdict) (*ignore.Matcher, *outcome, gate) {
	layers := [][]*policy.Rule{c.policy.Managed, s.permRules()}
	hidden := c.policy.WithReadDenials(m, layers[1])
	hidden = c.links.WithHardLinks(c.workspace, m, hidden, policy.ReadDenialPatterns(layers...))
	if v.Decision == policy.Deny {
		return hidden, nil, gate{}
	}
	if hidden != m {
		if parts, blocked := c.ignoreBlock(hidden, sub); blocked {
			out := failure(api.StatusDenied, api.ToolCodeDenied, strings.Join(parts, "\n\n"))
			return nil, &out, gate{decision: "deny", decidedBy: "rule: read deny"}
		}
	}
	if msg := policy.EditRedirectDenial(sub, policy.EditDenialPatterns(layers...)); msg != "" {
		out := failure(api.StatusDenied, api.ToolCodeDenied, msg)
		return nil, &out, gate{decision: "deny", decidedBy: "rule: edit deny"}
	}
	if msg := c.links.EditLinkDenial(c.workspace, t, sub, policy.EditDenialPatterns(layers...)); msg != "" {
		out := failure(api.StatusDenied, api.ToolCodeDenied, msg)
		return nil, &out, gate{decision: "deny", decidedBy: "rule: edit deny"}
	}
	return hidden, nil, gate{}
}

// decidedByRuleBefore is decidedByRule as it was: the default's text
// made on every call.
func decidedByRuleBefore(v policy.Verdict) string {
	if v.Rule != nil {
		return "rule: " + v.Rule.Text
	}
	return "default: " + v.Reason
}

// TestDecidedByRuleAsBefore: the audit texts kept as constants (the
// read default's, allow_all's) are the texts decidedByRuleBefore makes,
// and so are the others.
func TestDecidedByRuleAsBefore(t *testing.T) {
	rule, err := policy.ParseRules(api.Permissions{Allow: []string{"read_file(src/**)"}}, policy.LayerManaged)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []policy.Verdict{
		{Decision: policy.Allow, Reason: policy.ReadDefaultReason},
		{Decision: policy.Allow, Reason: policy.AllowAllReason},
		{Decision: policy.Allow, Rule: rule[0], Reason: "allowed by " + rule[0].String()},
		{Decision: policy.Ask, Reason: "approval required: edits ask (default)"},
	} {
		if got, want := decidedByRule(v), decidedByRuleBefore(v); got != want {
			t.Errorf("decidedByRule(%q) = %q, want %q", v.Reason, got, want)
		}
	}
}

// BenchmarkDecidedByAllowAll times the audit text of allow_all's verdict
// (decidedByAllowAll, a constant) against the text made for each call
// (decidedByRuleBefore).
//
//	go test -run '^$' -bench DecidedByAllowAll -count 5 ./coordinator/
func BenchmarkDecidedByAllowAll(b *testing.B) {
	v := policy.Verdict{Decision: policy.Allow, Reason: policy.AllowAllReason}
	var kept string
	benchpair.Run(b, func() { kept = decidedByRule(v) }, func() { kept = decidedByRuleBefore(v) })
	_ = kept
}
