package cline

import (
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// sortJS is the comparator of Cline's formatFilesList
// (apps/vscode/src/core/prompts/responses.ts, v4.0.12), run by node as the
// oracle for sortFiles: part by part, an entry ending at the first
// differing part before one going deeper, else localeCompare with numeric
// collation and base sensitivity.
const sortJS = `
const entries = JSON.parse(require("fs").readFileSync(0, "utf8"));
entries.sort((a, b) => {
  const ap = a.split("/"), bp = b.split("/");
  for (let i = 0; i < Math.min(ap.length, bp.length); i++) {
    if (ap[i] !== bp[i]) {
      if (i + 1 === ap.length && i + 1 < bp.length) return -1;
      if (i + 1 === bp.length && i + 1 < ap.length) return 1;
      return ap[i].localeCompare(bp[i], undefined, {numeric: true, sensitivity: "base"});
    }
  }
  return ap.length - bp.length;
});
process.stdout.write(JSON.stringify(entries));
`

func TestSortClineFilesMatchesNode(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is needed as the oracle for Cline's order (test.sh installs nodejs)")
	}
	entries := []string{
		"README.md", "readme.txt", "src/", "src/main.go", "src/lib/", "src/lib/util.go", "src/Zeta.go", "src/alpha.go",
		".env", ".git/", ".gitignore", "_private/", "-dash.txt", "a.txt", "B.txt", "b.txt", "é.txt", "e.txt",
		"f000.txt", "f001.txt", "f2.txt", "f010.txt", "f10.txt", "file10/", "file9/", "file9/x", "v1.10.0/", "v1.9.2/",
		"a b.txt", "a-b.txt", "a_b.txt", "a.b.txt", "ab.txt", "Z9", "z10", "0.txt", "00.txt", "10/", "9/",
		"docs/", "docs/a/", "docs/a/b.md", "docs/z.md", "docs/index.md",
	}
	in, _ := json.Marshal(entries)
	cmd := exec.CommandContext(t.Context(), node, "-e", sortJS)
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var want []string
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	got := slices.Clone(entries)
	sortFiles(got)
	if !slices.Equal(got, want) {
		t.Errorf("order differs from Cline's comparator under node:\n got %q\nwant %q", got, want)
	}
}
