package patch

import (
	"strings"
	"testing"
)

// TestParseErrors: each malformed patch names the line and the problem.
func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ name, patch, want string }{
		{"no end", "*** Begin Patch\n*** Add File: a\n+x\n", `no "*** End Patch"`},
		{"no begin", "*** Add File: a\n+x\n*** End Patch\n", `no "*** Begin Patch"`},
		{"text outside", "hello\n*** Begin Patch\n*** Delete File: a\n*** End Patch\n", "line 1: text outside"},
		{"unknown section", "*** Begin Patch\n*** Rename File: a\n*** End Patch\n", "line 2: expected a file section"},
		{"add without plus", "*** Begin Patch\n*** Add File: a\nx\n*** End Patch\n", `line 3: every line of an added file starts with "+"`},
		{"empty update", "*** Begin Patch\n*** Update File: a\n*** End Patch\n", "has no hunks"},
		{"hunk changes nothing", "*** Begin Patch\n*** Update File: a\n@@\n same\n*** End Patch\n", `no "-" or "+" line`},
		{"second hunk without @@", "*** Begin Patch\n*** Update File: a\n-x\n+y\n*** End of File\n-z\n*** End Patch\n", `expected "@@"`},
		{"unknown marker", "*** Begin Patch\n*** Update File: a\n-x\n*** Frobnicate\n*** End Patch\n", `unknown marker line "*** Frobnicate"`},
		{"path twice", "*** Begin Patch\n*** Delete File: a\n*** Update File: a\n-x\n+y\n*** End Patch\n", "a is named again (first on line 2)"},
		{"no path", "*** Begin Patch\n*** Delete File: \n*** End Patch\n", "names no file"},
		{"nothing", "*** Begin Patch\n*** End Patch\n", "changes no file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.patch)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// TestParseShapes: the sections and hunks Cline's and Codex's patches hold.
func TestParseShapes(t *testing.T) {
	ops, err := Parse("*** Begin Patch\n*** Update File: a.go\n*** Move to: b.go\n@@ func A() {\n@@   if x {\n ctx\n-old\n+new\n\n*** Add File: c\n+1\n+\n*** Delete File: d\n*** End Patch")
	if err != nil {
		t.Fatal(err)
	}
	if len(ops) != 3 || ops[0].Kind != Update || ops[0].MoveTo != "b.go" || ops[1].Kind != Add || ops[1].Content != "1\n\n" || ops[2].Kind != Delete {
		t.Fatalf("ops = %+v", ops)
	}
	h := ops[0].Hunks[0]
	if strings.Join(h.Anchors, "|") != "func A() {|if x {" || strings.Join(h.Old(), "|") != "ctx|old" || strings.Join(h.New(), "|") != "ctx|new" {
		t.Errorf("hunk = %+v", h)
	}
}
