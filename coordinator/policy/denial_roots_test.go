package policy

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/benchpair"
	"github.com/toolgate/toolgate/internal/ignore"
)

// TestDenialRootsOnce: patterns sharing a root give it once, in the order
// the patterns first name it, and the walk's answer is what walking each
// pattern's root gave.
func TestDenialRootsOnce(t *testing.T) {
	patterns := []string{"**/.env", "secret/**", "*.pem", "/secret/keys/*", "secret/**/*.key", "**/id_rsa"}
	if got, want := denialRoots(patterns), []string{".", "secret", "secret/keys"}; !slices.Equal(got, want) {
		t.Fatalf("denialRoots = %q, want %q", got, want)
	}
	s := newLinkSetup(t, "**/.env", "a/.env", "b/c/.env", "out/readme")
	s.link("a/.env", "out/a")
	s.link("b/c/.env", "b/other")
	twice := []string{"**/.env", "**/.env", "b/**/.env", "b/**/.env"}
	hidden := s.base.WithRules(ignore.ParseRules("deny", "", []byte(strings.Join(twice, "\n")+"\n")))
	got := otherNames(s.ws, denialRoots(twice), matchedBy(hidden), nil)
	want := otherNames(s.ws, denialRootsEach(twice), matchedBy(hidden), nil)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) || len(want) == 0 {
		t.Fatalf("other names %q with each root once, %q walking each pattern's", got, want)
	}
}

// denialRootsEach is denialRoots as it was: a root for each pattern,
// repeated as often as patterns name it.
func denialRootsEach(patterns []string) []string {
	var out []string
	for _, p := range patterns {
		out = append(out, denialRoots([]string{p})...)
	}
	return out
}

// BenchmarkDenialRootsOnce walks for the other names of files that 20
// read deny rules matching at any depth cover, on the 3,000-file
// workspace: each root once against a root per pattern, alternating.
func BenchmarkDenialRootsOnce(b *testing.B) {
	ws := linkBenchWorkspace(b)
	var denials []string
	for i := range 20 {
		denials = append(denials, fmt.Sprintf("**/secret%d", i))
	}
	hidden := ignore.NewMatcher().WithRules(ignore.ParseRules("deny", "", []byte(strings.Join(denials, "\n")+"\n")))
	benchpair.Run(b, func() {
		otherNames(ws, denialRoots(denials), matchedBy(hidden), nil)
	}, func() {
		otherNames(ws, denialRootsEach(denials), matchedBy(hidden), nil)
	})
}
