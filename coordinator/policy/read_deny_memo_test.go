package policy

import (
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/internal/ignore"
)

// TestReadDenialMemo: the matcher with a session's read denials is made
// once for the same ignore rules and the same parsed rules, and made
// again when either changes, so a changed rule or ignore file is never
// judged by the matcher before it.
func TestReadDenialMemo(t *testing.T) {
	managed, err := ParseRules(api.Permissions{Deny: []string{"read_file(.env)"}}, LayerManaged)
	if err != nil {
		t.Fatal(err)
	}
	p := New(Options{Managed: managed})
	base := ignore.NewMatcher(ignore.ParseRules(".clineignore", "", []byte("build/\n")))
	session := SessionRules(api.Permissions{Deny: []string{"read_file(secret/**)"}})
	hit := func(m *ignore.Matcher, rel string) bool {
		_, h := m.Match(rel, false)
		return h
	}

	first := p.WithReadDenials(base, session)
	if !hit(first, ".env") || !hit(first, "secret/key.txt") || !hit(first, "build/out.js") || hit(first, "src/a.go") {
		t.Fatalf("the matcher with the denials judges wrongly")
	}
	if again := p.WithReadDenials(base, session); again != first {
		t.Errorf("the same rules made a new matcher: each call parses the rules again")
	}

	changed := SessionRules(api.Permissions{Deny: []string{"read_file(private/**)"}})
	m := p.WithReadDenials(base, changed)
	if m == first || hit(m, "secret/key.txt") || !hit(m, "private/a.txt") || !hit(m, ".env") {
		t.Errorf("after the session's rules changed the old denials still judge")
	}

	newBase := ignore.NewMatcher(ignore.ParseRules(".clineignore", "", []byte("dist/\n")))
	m = p.WithReadDenials(newBase, session)
	if hit(m, "build/out.js") || !hit(m, "dist/out.js") || !hit(m, "secret/key.txt") {
		t.Errorf("after the ignore rules changed the old ones still judge")
	}

	if none := p.WithReadDenials(base, nil); hit(none, "secret/key.txt") || !hit(none, ".env") {
		t.Errorf("a session without rules is judged by another session's")
	}
}
