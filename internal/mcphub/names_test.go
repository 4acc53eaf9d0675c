package mcphub

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestListedName(t *testing.T) {
	valid := regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	long := strings.Repeat("x", 80)
	cases := []struct{ name, server, tool, want string }{
		{"plain", "github", "create_issue", "mcp__github__create_issue"},
		{"odd characters", "my server.v2", "do/it now", "mcp__my_server_v2__do_it_now"},
		{"underscore runs in server", "a__b_", "t", "mcp__a_b__t"},
		{"long tool cut with hash", "s", long, ""},
		{"long server cut with hash", long, "t", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := ListedName(c.server, c.tool)
			if c.want != "" && got != c.want {
				t.Errorf("ListedName(%q, %q) = %q, want %q", c.server, c.tool, got, c.want)
			}
			if !valid.MatchString(got) {
				t.Errorf("ListedName(%q, %q) = %q, not [a-zA-Z0-9_-]{1,64}", c.server, c.tool, got)
			}
			if rest := strings.TrimPrefix(got, "mcp__"); !strings.HasPrefix(rest, cleanServer(c.server)+"__") {
				t.Errorf("ListedName = %q, server part %q not first", got, cleanServer(c.server))
			}
		})
	}
	t.Run("cut names differ", func(t *testing.T) {
		a, b := ListedName("s", long+"a"), ListedName("s", long+"b")
		if a == b {
			t.Errorf("two long tools share the name %q", a)
		}
	})
}

// TestCleanMatchesPatterns checks the cleaning functions against the
// regular expressions that define them: [^a-zA-Z0-9_-] becomes "_", then
// _{2,} becomes "_".
func TestCleanMatchesPatterns(t *testing.T) {
	invalid, runs := regexp.MustCompile(`[^a-zA-Z0-9_-]`), regexp.MustCompile(`_{2,}`)
	for _, in := range []string{
		"", "github", "my server.v2", "a__b_", "___", "__x__y___z__", "é-ü/ñ", "日本語_tool",
		"bad\xffutf8\xfe", "tab\there", "-dash-", "a_ _b", "\x00nul", strings.Repeat("_.", 20),
	} {
		t.Run(strconv.Quote(in), func(t *testing.T) {
			if got, want := replaceInvalid(in), invalid.ReplaceAllString(in, "_"); got != want {
				t.Errorf("replaceInvalid(%q) = %q, want %q", in, got, want)
			}
			if got, want := collapseUnderscores(in), runs.ReplaceAllString(in, "_"); got != want {
				t.Errorf("collapseUnderscores(%q) = %q, want %q", in, got, want)
			}
		})
	}
}
