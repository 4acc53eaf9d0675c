package policy

import (
	"testing"

	"github.com/toolgate/toolgate/internal/benchpair"
	"github.com/toolgate/toolgate/internal/shellcmd"
)

// coversBefore is covers as it was, without its early answer for no
// rule: the baseline of BenchmarkCoversNoRule and
// TestCoversNoRuleAsBefore.
func coversBefore(allows []*Rule, s *Subject) (*Rule, bool) {
	for _, r := range allows {
		if r.MatchesName(s) && !r.hasContent {
			return r, true
		}
	}
	switch {
	case s.Command != nil:
		return coverCommands(allows, s)
	case s.URL != "":
		return coverEach(allows, s, []string{s.Host}, func(r *Rule, host string) bool {
			return r.domain != "" && domainMatches(r.domain, host)
		})
	case len(s.Paths) > 0:
		return coverEach(allows, s, s.Paths, (*Rule).matchesPath)
	}
	return nil, false
}

// coverSubjects are a call of each kind covers tells apart.
func coverSubjects() []*Subject {
	echo := shellcmd.Analyze("echo hi && ls")
	return []*Subject{
		{Tool: "read_file", Paths: []PathRef{{Rel: "one_kb.txt"}}},
		{Tool: "read_file", Paths: []PathRef{{Rel: "a.txt"}, {Rel: "src/b.go"}}},
		{Tool: "web_fetch", URL: "https://example.com/x", Host: "example.com"},
		{Tool: "execute_command", Command: &echo, Line: "echo hi && ls"},
		{Tool: "execute_command", Command: &shellcmd.Analysis{}, Line: ""},
		{Tool: "attempt_completion"},
	}
}

// TestCoversNoRuleAsBefore: with no allow rule, covers answers as it did
// before its early answer, for a call of each kind; and with rules, as
// before too.
func TestCoversNoRuleAsBefore(t *testing.T) {
	var rules []*Rule
	for _, text := range []string{"read_file(src/**)", "read_file", "execute_command(echo *)", "web_fetch(domain:example.com)"} {
		r, err := parseRule(text, listAllow, layerSession)
		if err != nil {
			t.Fatal(err)
		}
		rules = append(rules, r)
	}
	for _, allows := range [][]*Rule{nil, {}, rules[:1], rules[2:], rules} {
		for i, s := range coverSubjects() {
			r, ok := covers(allows, s)
			rb, okb := coversBefore(allows, s)
			if r != rb || ok != okb {
				t.Errorf("%d rules, subject %d: covers %v %v, before %v %v", len(allows), i, r, ok, rb, okb)
			}
		}
	}
}

// BenchmarkCoversNoRule times whether allow rules cover a 1 KB read when
// there is none (allow_all's judgement of nearly every call, and the
// default config's before its defaults) against covers before its early
// answer, which made the path matcher's closure for each path.
//
//	go test -run '^$' -bench CoversNoRule -count 5 ./coordinator/policy/
func BenchmarkCoversNoRule(b *testing.B) {
	s := coverSubjects()[0]
	benchpair.Run(b, func() {
		if _, ok := covers(nil, s); ok {
			b.Fatal("covered")
		}
	}, func() {
		if _, ok := coversBefore(nil, s); ok {
			b.Fatal("covered")
		}
	})
}
