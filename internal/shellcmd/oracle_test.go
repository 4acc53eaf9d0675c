package shellcmd

import (
	"bytes"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// needBash returns bash's path, skipping outside CI when it is missing.
func needBash(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("bash")
	if err != nil {
		if os.Getenv("CI") == "" {
			t.Skip("bash not installed")
		}
		t.Fatal("bash not installed")
	}
	return p
}

// bashArgs returns the arguments bash passes for a command line's words,
// with globbing off, or false if bash rejects the line.
func bashArgs(t *testing.T, bash, words string) ([]string, bool) {
	t.Helper()
	cmd := exec.Command(bash, "--norc", "--noprofile", "-c", "set -f\nprintf '%s\\0' start "+words)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=/nonexistent"}
	out, err := cmd.Output()
	if err != nil {
		return nil, false
	}
	fields := strings.Split(string(bytes.TrimSuffix(out, []byte{0})), "\x00")
	return fields[1:], true // printf prints its format once even without arguments
}

// TestWordsMatchBash checks quote removal against real bash: for every line
// the analysis considers plain, bash must see the same arguments.
func TestWordsMatchBash(t *testing.T) {
	bash := needBash(t)
	cases := []string{
		`'r'm`, `r\m`, `"rm"`, `"a\"b"`, `"a\b"`, `'a\b'`, `a\ b`, `"a b"`, `a"b"'c'`,
		`"\$x"`, "\"a\\\nb\"", "a\\\nb", `\\`, `"\\"`, `'"'`, `"'"`, `a#b`, `'#'`,
		`--x=y`, `a=b`, `\~`, `'~'`, `a~`, `\{a,b\}`, `'{a,b}'`, `HEAD@{1}`, `{}`, `a\*`,
		`'*'`, `"*"`, `!x`, `"!x"`, `\!`, `%`, `@`, `a:b`, `"` + "\t" + `"`, `\	`,
	}
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "b", "'", "\"", `\`, " ", "\t", "$", "{", ",", "}", "~", "#", "=", ":", "!", "-", "*", "\n", "(", ";", "&", "|", "<"}
	for range 300 {
		var sb strings.Builder
		for range 1 + rng.IntN(8) {
			sb.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		cases = append(cases, sb.String())
	}
	checked := 0
	for _, words := range cases {
		a := Analyze("printf '%s\\0' " + words)
		if a.HasRisk() || len(a.Commands) != 1 {
			continue
		}
		want, ok := bashArgs(t, bash, words)
		if !ok {
			t.Errorf("bash rejected %q, which the analysis found plain", words)
			continue
		}
		checked++
		if got := a.Commands[0].Args[2:]; !slices.Equal(got, want) {
			t.Errorf("words %q: Args = %q, bash sees %q", words, got, want)
		}
	}
	t.Logf("%d of %d lines compared", checked, len(cases))
	if checked < 50 {
		t.Errorf("only %d lines were plain enough to compare; want at least 50", checked)
	}
}

// FuzzAnalyze checks that no input panics and that the verdicts stay
// consistent with the risks.
func FuzzAnalyze(f *testing.F) {
	for _, s := range []string{
		"ls -la", "ls && rm -rf ~", "a | b; c\nd", "echo $(rm x) `id` <(ls)", "cat <<EOF\n$(x)\nEOF",
		"f() { ls; }", "for i in 1 2; do rm $i; done", "ls\rrm", "sudo env -i A=1 timeout 5 rm",
		"bash -c 'bash -c \"eval rm\"'", "find . -exec rm {} + -exec", "git -c", "cd", "cd ..; cd a || cat",
		"x=(a b) y[1]=2", "case a in (a) ;; esac", "[[ a =~ b ]]", "${x:-$(y)}", "$'\\x00'", "{a,b}", "~",
		"((", "'", "\\", "a >&", "xargs", "exec", "command", "watch -n", "npm run", "git branch",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a := Analyze(s)
		for _, r := range a.Risks {
			if strings.HasPrefix(r.Detail, "internal error") {
				t.Fatalf("Analyze(%q) recovered from a panic: %s", s, r.Detail)
			}
		}
		for _, c := range a.Commands {
			if len(c.Args) == 0 {
				t.Fatalf("Analyze(%q) gave a command without Args", s)
			}
		}
		if a.ReadOnly() && (a.HasRisk() || strings.ContainsAny(s, "\r\x00\x1b")) {
			t.Fatalf("Analyze(%q).ReadOnly() = true with risks %v", s, a.Risks)
		}
		a.LongRunning()
		a.PathArgs()
	})
}

func BenchmarkAnalyzeChain(b *testing.B) {
	cmd := strings.Repeat("git status && ls -la | grep x; ", 200) + "rm -rf ~"
	for b.Loop() {
		Analyze(cmd)
	}
}
