package search

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// requireTool finds a Debian tool the test compares against; it is only
// allowed to be missing outside CI.
func requireTool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "" {
			t.Skipf("%s not installed", name)
		}
		t.Fatalf("%s not installed (Debian package ripgrep)", name)
	}
	return p
}

// goRoot is the root of the Go installation that runs the tests, whose
// source tree the oracle and benchmarks search.
func goRoot(tb testing.TB) string {
	tb.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		tb.Fatalf("go env GOROOT: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// rgMatches runs ripgrep in dir and returns its matching "path:line" pairs.
func rgMatches(t testing.TB, dir string, args ...string) []string {
	t.Helper()
	rg := requireTool(t, "rg")
	cmd := exec.Command(rg, append([]string{"--json"}, args...)...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil && cmd.ProcessState.ExitCode() != 1 {
		t.Fatalf("rg %v: %v: %s", args, err, stderr.String())
	}
	var got []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var ev struct {
			Type string
			Data struct {
				Path       struct{ Text string }
				LineNumber int `json:"line_number"`
			}
		}
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("rg json: %v", err)
		}
		if ev.Type == "match" {
			got = append(got, fmt.Sprintf("%s:%d", strings.TrimPrefix(ev.Data.Path.Text, "./"), ev.Data.LineNumber))
		}
	}
	slices.Sort(got)
	return got
}

// ourMatches runs Search without a result cap and returns "path:line" pairs.
func ourMatches(t testing.TB, root *os.Root, opts Options) []string {
	t.Helper()
	opts.MaxResults = 1 << 30
	res, err := Search(context.Background(), root, opts)
	if err != nil {
		t.Fatalf("Search(%q): %v", opts.Regex, err)
	}
	return matchPairs(res)
}

// matchPairs lists a result's matches as sorted "path:line" pairs.
func matchPairs(res *Result) []string {
	var got []string
	for _, f := range res.Files {
		for _, l := range f.Lines {
			if l.Match {
				got = append(got, fmt.Sprintf("%s:%d", f.Path, l.Number))
			}
		}
	}
	slices.Sort(got)
	return got
}

// diffSets reports the first few differences between two sorted lists.
func diffSets(t testing.TB, what string, got, want []string) {
	t.Helper()
	if slices.Equal(got, want) {
		return
	}
	wantSet := map[string]bool{}
	for _, w := range want {
		wantSet[w] = true
	}
	gotSet := map[string]bool{}
	for _, g := range got {
		gotSet[g] = true
	}
	var extra, missing []string
	for _, g := range got {
		if !wantSet[g] {
			extra = append(extra, g)
		}
	}
	for _, w := range want {
		if !gotSet[w] {
			missing = append(missing, w)
		}
	}
	t.Errorf("%s: got %d, want %d (rg); extra %v; missing %v", what, len(got), len(want), head(extra), head(missing))
}

func head(s []string) []string { return s[:min(len(s), 8)] }

var oraclePatterns = []string{
	`hello`,
	`func main`,
	`(?i)HeLLo`,
	`^package `,
	`\)$`,
	`[A-Z]{3,}_[0-9]+`,
	`\w+ö\w*`,
	`\p{Han}+`,
	`é`,
	`\bfor\b`,
	`TODO|FIXME`,
	`\d{4}-\d{2}`,
	`(?i)école`,
	`(?i)ÉCOLE`,
	`(?i)kelvin`,
	`(?i)STATUS`,
	`(?i)ıd`,
	`(?i)İd`,
	`(?i)ID`,
	`(?i)deadline exceeded`,
	`(?i)deprecated`,
	`(?i)kks`,
	`(?i)(deadline|status)\s`,
	`(?i:dead)line|Status`,
	`[Dd]eprecated`,
	`func \w+\(`,
	`secret\s+word`,
	`(hello) (world|crlf)`,
	`e.o`,
	`\s+$`,
	`^\s*$`,
	`[^\x00-\x7F]`,
	`\W\w\W`,
	`x*`,
}

func TestOracleGeneratedTree(t *testing.T) {
	requireTool(t, "rg")
	dir := generatedTree(t)
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for _, p := range oraclePatterns {
		t.Run(p, func(t *testing.T) {
			diffSets(t, p, ourMatches(t, root, Options{Regex: p}), rgMatches(t, dir, "-e", p, "."))
		})
	}
	t.Run("subdir", func(t *testing.T) {
		p := `hello|secret`
		diffSets(t, p, ourMatches(t, root, Options{Regex: p, Path: "sub"}), rgMatches(t, dir, "-e", p, "sub"))
	})
}

// heavyPatterns match most lines; the generated tree covers them, the Go
// tree would only make the test slow.
var heavyPatterns = map[string]bool{`x*`: true, `^\s*$`: true, `\s+$`: true, `\W\w\W`: true}

// goSubtrees are parts of the Go tree with hidden files, testdata with
// binary files, non-ASCII text and a .gitignore outside any repository.
var goSubtrees = []string{"regexp", "unicode", "strings", "go/scanner", "cmd/go/internal/imports",
	"cmd/vendor/golang.org/x/telemetry", "archive", "html", "debug/elf"}

func TestOracleGoTree(t *testing.T) {
	requireTool(t, "rg")
	src := filepath.Join(goRoot(t), "src")
	root, err := os.OpenRoot(src)
	if err != nil {
		t.Skipf("no Go source tree: %v", err)
	}
	defer root.Close()
	for _, sub := range goSubtrees {
		if _, err := os.Stat(filepath.Join(src, sub)); err != nil {
			t.Fatalf("Go tree lacks %s: %v", sub, err)
		}
	}
	for _, p := range oraclePatterns {
		if heavyPatterns[p] {
			continue
		}
		t.Run(p, func(t *testing.T) {
			var got, want []string
			for _, sub := range goSubtrees {
				got = append(got, ourMatches(t, root, Options{Regex: p, Path: sub})...)
				want = append(want, rgMatches(t, src, "-e", p, sub)...)
			}
			slices.Sort(got)
			slices.Sort(want)
			diffSets(t, p, got, want)
		})
	}
	t.Run("glob", func(t *testing.T) {
		for _, g := range []string{"*.go", "*_test.go", "*.{s,h}", "regexp/testdata/*", "**/testdata/*.txt", "[r]e*.go"} {
			got := ourMatches(t, root, Options{Regex: "func", Path: "regexp", FilePattern: g})
			diffSets(t, g, got, rgMatches(t, src, "-e", "func", "-g", g, "regexp"))
		}
	})
}
