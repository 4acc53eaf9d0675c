package shellcmd

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

func kinds(a Analysis) []string {
	var out []string
	for _, r := range a.Risks {
		out = append(out, r.Kind)
	}
	return out
}

func TestRisks(t *testing.T) {
	tests := []struct {
		name, cmd, kind string
	}{
		{"command substitution", "echo $(rm -rf ~)", KindCommandSubst},
		{"command substitution in quotes", `echo "$(id)"`, KindCommandSubst},
		{"backticks", "echo `id`", KindBackticks},
		{"process substitution in", "diff <(ls) a", KindProcessSubst},
		{"process substitution out", "ls >(cat)", KindProcessSubst},
		{"redirect out", "ls > out", KindRedirect},
		{"redirect append", "ls >> out", KindRedirect},
		{"redirect in", "cat < .env", KindRedirect},
		{"redirect all", "ls &> out", KindRedirect},
		{"redirect fd 3", "ls 3>&1", KindRedirect},
		{"redirect dup to file", "ls >& out", KindRedirect},
		{"redirect quoted dev null lookalike", "ls > /dev/null2", KindRedirect},
		{"redirect named fd", "ls {fd}>out", KindRedirect},
		{"heredoc", "cat <<EOF\nhi\nEOF", KindHeredoc},
		{"herestring", "cat <<< hi", KindHeredoc},
		{"env prefix", "FOO=1 ls", KindAssignment},
		{"bare assignment", "PATH=/tmp", KindAssignment},
		{"export", "export PATH=/tmp", KindAssignment},
		{"param", "cat $HOME/x", KindParamExpansion},
		{"param braces", "cat ${HOME}", KindParamExpansion},
		{"param in dquotes", `echo "$X"`, KindParamExpansion},
		{"arith expansion", "echo $((1+2))", KindArithExpansion},
		{"subshell", "(ls)", KindSubshell},
		{"block", "{ ls; }", KindBlock},
		{"function", "f() { ls; }; f", KindFunction},
		{"eval", "eval ls", KindEval},
		{"exec", "exec ls", KindExec},
		{"source", "source x.sh", KindSource},
		{"dot", ". x.sh", KindSource},
		{"bash -c", "bash -c 'ls'", KindShellCommand},
		{"sh -c", "sh -c ls", KindShellCommand},
		{"zsh -c", "zsh -c ls", KindShellCommand},
		{"bash -lc", "bash -lc ls", KindShellCommand},
		{"bash script", "bash x.sh", KindShellCommand},
		{"shell by path", "/bin/sh -c ls", KindShellCommand},
		{"pipe to shell", "cat x | sh", KindShellCommand},
		{"watch", "watch ls", KindShellCommand},
		{"xargs", "ls | xargs rm", KindXargs},
		{"find exec", `find . -exec rm {} \;`, KindFindExec},
		{"find execdir", "find . -execdir rm {} +", KindFindExec},
		{"find ok", `find . -ok rm {} \;`, KindFindExec},
		{"find okdir", `find . -okdir rm {} \;`, KindFindExec},
		{"find delete", "find . -delete", KindFindExec},
		{"fd exec", "fd -x rm", KindFindExec},
		{"git -c", "git -c core.pager=id log", KindGitConfig},
		{"git -c attached", "git -ccore.pager=id log", KindGitConfig},
		{"git config-env", "git --config-env=core.pager=X log", KindGitConfig},
		{"git exec-path", "git --exec-path=. status", KindGitConfig},
		{"arith command", "((x=1))", KindCompound},
		{"test clause", "[[ -f x ]]", KindCompound},
		{"for", "for f in a; do ls; done", KindCompound},
		{"while", "while true; do ls; done", KindCompound},
		{"if", "if ls; then ls; fi", KindCompound},
		{"case", "case x in x) ls;; esac", KindCompound},
		{"let", "let x=1", KindCompound},
		{"time", "time ls", KindCompound},
		{"negation", "! ls", KindCompound},
		{"background", "ls &", KindBackground},
		{"carriage return", "ls\rrm -rf /", KindControlChar},
		{"nul", "ls\x00", KindControlChar},
		{"escape", "ls \x1b[2J", KindControlChar},
		{"del", "ls\x7f", KindControlChar},
		{"bidi override", "ls \u202e", KindControlChar},
		{"zero width", "l\u200bs", KindControlChar},
		{"nbsp", "ls\u00a0-la", KindControlChar},
		{"invalid utf8", "ls \xff", KindControlChar},
		{"parse error", "ls 'x", KindParseError},
		{"parse error paren", "ls )", KindParseError},
		{"sudo", "sudo ls", KindWrapper},
		{"env", "env ls", KindWrapper},
		{"nice", "nice -n 5 ls", KindWrapper},
		{"timeout", "timeout 5 ls", KindWrapper},
		{"nohup", "nohup ls", KindWrapper},
		{"command", "command ls", KindWrapper},
		{"builtin", "builtin cd x", KindWrapper},
		{"env -S", "env -S 'ls -la'", KindShellCommand},
		{"dollar quote", `$'\x72m' x`, KindDollarQuote},
		{"locale quote", `echo $"x"`, KindDollarQuote},
		{"brace expansion", "{rm,-rf,x}", KindBraceExpansion},
		{"brace sequence", "touch a{1..3}", KindBraceExpansion},
		{"brace with quotes", "echo {a,'b c'}", KindBraceExpansion},
		{"tilde", "cat ~/.ssh/id_rsa", KindTilde},
		{"tilde after equals", "ls --x=~/a", KindTilde},
		{"extglob", "ls @(a|b)", KindExtGlob},
		{"cd home", "cd && ls", KindCd},
		{"cd dash", "cd - && ls", KindCd},
		{"cd param", "cd $D && ls", KindCd},
		{"popd", "popd", KindCd},
		{"shopt", "shopt -s expand_aliases", KindShellState},
		{"alias", "alias ls='rm -rf ~'", KindShellState},
		{"hash -p", "hash -p /tmp/x ls", KindShellState},
		{"trap", "trap 'rm x' EXIT", KindShellState},
		{"enable -f", "enable -f ./x.so x", KindShellState},
		{"set -k", "set -k", KindShellState},
		{"printf -v", "printf -v PATH /tmp", KindShellState},
		{"cd with CDPATH prefix", "CDPATH=/ cd etc", KindCd},
		{"too long", "ls " + strings.Repeat("a", MaxInput), KindTooLong},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := Analyze(tt.cmd)
			if got := kinds(a); !slices.Contains(got, tt.kind) {
				t.Errorf("Analyze(%q) risks = %v, want %s", tt.cmd, a.Risks, tt.kind)
			}
			if a.ReadOnly() {
				t.Errorf("Analyze(%q).ReadOnly() = true, want false", tt.cmd)
			}
			if !a.HasRisk() {
				t.Errorf("Analyze(%q).HasRisk() = false, want true", tt.cmd)
			}
		})
	}
}

func TestAllowedRedirects(t *testing.T) {
	for _, cmd := range []string{
		"ls 2>&1", "ls 1>&2", "ls >&2", "ls >/dev/null", "ls 2>/dev/null",
		"ls &>/dev/null", "ls >> /dev/null", "ls '/dev/null' < /dev/null",
		"ls 2>&1 | grep x", "ls |& grep x",
	} {
		t.Run(cmd, func(t *testing.T) {
			a := Analyze(cmd)
			if len(a.Risks) != 0 || !a.ReadOnly() {
				t.Errorf("Analyze(%q): risks %v, ReadOnly %v; want none, true", cmd, a.Risks, a.ReadOnly())
			}
		})
	}
}

func TestGlobIsInformational(t *testing.T) {
	for _, cmd := range []string{"ls *.go", "cat a?.txt", "ls [ab]"} {
		t.Run(cmd, func(t *testing.T) {
			a := Analyze(cmd)
			if got := kinds(a); !slices.Equal(got, []string{KindGlob}) {
				t.Errorf("risks = %v, want [glob]", got)
			}
			if !a.ReadOnly() {
				t.Errorf("ReadOnly() = false, want true")
			}
		})
	}
	for _, cmd := range []string{`ls '*'`, `ls \*`, `ls "a?"`, "git log HEAD@{1}", "ls {}"} {
		t.Run("quoted "+cmd, func(t *testing.T) {
			if a := Analyze(cmd); len(a.Risks) != 0 {
				t.Errorf("risks = %v, want none", a.Risks)
			}
		})
	}
}

func TestQuotedNames(t *testing.T) {
	for _, cmd := range []string{`'r'm -rf x`, `r\m -rf x`, `"rm" -rf x`, `"r"'m' -rf x`, `\rm -rf x`} {
		t.Run(cmd, func(t *testing.T) {
			a := Analyze(cmd)
			if len(a.Commands) != 1 {
				t.Fatalf("commands = %v, want 1", a.Commands)
			}
			if got := a.Commands[0].Args; !slices.Equal(got, []string{"rm", "-rf", "x"}) {
				t.Errorf("args = %q, want [rm -rf x]", got)
			}
			if !MatchRule("rm *", a.Commands[0]) {
				t.Errorf("MatchRule(rm *) = false, want true")
			}
			if a.ReadOnly() {
				t.Errorf("ReadOnly() = true, want false")
			}
		})
	}
}

func TestCarriageReturnStillShowsCommands(t *testing.T) {
	a := Analyze("ls\rrm -rf /")
	if a.ReadOnly() {
		t.Fatal("ReadOnly() = true, want false")
	}
	if !slices.Contains(kinds(a), KindControlChar) {
		t.Errorf("risks = %v, want control_char", a.Risks)
	}
}

func TestLists(t *testing.T) {
	tests := []struct {
		cmd  string
		want [][]string
	}{
		{"ls && rm -rf ~", [][]string{{"ls"}, {"rm", "-rf", "~"}}},
		{"a || b", [][]string{{"a"}, {"b"}}},
		{"a; b", [][]string{{"a"}, {"b"}}},
		{"a | b | c", [][]string{{"a"}, {"b"}, {"c"}}},
		{"a\nb\n\nc", [][]string{{"a"}, {"b"}, {"c"}}},
		{"a && b || c; d | e\nf", [][]string{{"a"}, {"b"}, {"c"}, {"d"}, {"e"}, {"f"}}},
		{"echo $(rm x)", [][]string{{"echo", "$(rm x)"}, {"rm", "x"}}},
		{"if a; then b; fi", [][]string{{"a"}, {"b"}}},
		{"sudo rm -rf /", [][]string{{"sudo", "rm", "-rf", "/"}, {"rm", "-rf", "/"}}},
		{"timeout -s KILL 5 nice -n 3 rm x", [][]string{
			{"timeout", "-s", "KILL", "5", "nice", "-n", "3", "rm", "x"}, {"nice", "-n", "3", "rm", "x"}, {"rm", "x"}}},
		{"env -i A=1 rm x", [][]string{{"env", "-i", "A=1", "rm", "x"}, {"rm", "x"}}},
		{"ls | xargs -n 1 rm", [][]string{{"ls"}, {"xargs", "-n", "1", "rm"}, {"rm"}}},
		{`find . -exec rm {} \; -print`, [][]string{{"find", ".", "-exec", "rm", "{}", ";", "-print"}, {"rm", "{}"}}},
		{"bash -c 'ls; rm x'", [][]string{{"bash", "-c", "ls; rm x"}, {"ls"}, {"rm", "x"}}},
		{"eval 'rm x'", [][]string{{"eval", "rm x"}, {"rm", "x"}}},
	}
	for _, tt := range tests {
		t.Run(tt.cmd, func(t *testing.T) {
			a := Analyze(tt.cmd)
			var got [][]string
			for _, c := range a.Commands {
				got = append(got, c.Args)
			}
			if !slices.EqualFunc(got, tt.want, slices.Equal) {
				t.Errorf("commands = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestLongChainEndsInDenied(t *testing.T) {
	cmd := strings.Repeat("ls && ", 200) + "rm -rf ~"
	a := Analyze(cmd)
	if got := len(a.Commands); got != 201 {
		t.Fatalf("len(Commands) = %d, want 201", got)
	}
	last := a.Commands[200]
	if !slices.Equal(last.Args, []string{"rm", "-rf", "~"}) || last.Text != "rm -rf ~" {
		t.Errorf("last command = %q (%q), want rm -rf ~", last.Args, last.Text)
	}
	if a.ReadOnly() {
		t.Error("ReadOnly() = true, want false")
	}
	denied := false
	for _, c := range a.Commands {
		denied = denied || MatchRule("rm:*", c)
	}
	if !denied {
		t.Error("no command matched the deny rule rm:*")
	}
}

func TestText(t *testing.T) {
	a := Analyze("ls  -la 2>/dev/null && 'g'it   status")
	want := []string{"ls  -la 2>/dev/null", "'g'it   status"}
	for i, c := range a.Commands {
		if i < len(want) && c.Text != want[i] {
			t.Errorf("Commands[%d].Text = %q, want %q", i, c.Text, want[i])
		}
	}
	if len(a.Commands) != len(want) {
		t.Errorf("len(Commands) = %d, want %d", len(a.Commands), len(want))
	}
}

func TestEmpty(t *testing.T) {
	for _, cmd := range []string{"", "  ", "# comment", "\n\n"} {
		if a := Analyze(cmd); a.ReadOnly() || len(a.Commands) != 0 {
			t.Errorf("Analyze(%q) = %+v, ReadOnly %v; want no commands, false", cmd, a, a.ReadOnly())
		}
	}
}

// Analyze remembers recent command lines; what it hands out is the
// caller's own: changing one result leaves the next one of the same line
// as a fresh parse gives it.
func TestRememberedAnalysisIsACopy(t *testing.T) {
	for _, cmd := range []string{"true", "cd sub && rm -rf build > log", "echo $(id) `date` *.go", "bash -c 'cd /tmp; ls'"} {
		want := analyze(cmd)
		first := Analyze(cmd)
		if !reflect.DeepEqual(first, want) {
			t.Fatalf("%q: Analyze %+v, want %+v", cmd, first, want)
		}
		for i := range first.Commands {
			first.Commands[i].Args[0] = "changed"
			first.Commands[i].dirs = append(first.Commands[i].dirs[:0], "changed")
		}
		for i := range first.Risks {
			first.Risks[i].Kind = "changed"
		}
		for i := range first.paths {
			first.paths[i] = "changed"
		}
		if again := Analyze(cmd); !reflect.DeepEqual(again, want) {
			t.Errorf("%q: after changing a result, Analyze gives %+v, want %+v", cmd, again, want)
		}
	}
}

// The cache forgets its oldest lines beyond its bound.
func TestAnalysisCacheBounded(t *testing.T) {
	c := &analysisCache{max: 3}
	for _, cmd := range []string{"a", "b", "c", "d"} {
		c.put(cmd, analyze(cmd))
	}
	if _, ok := c.get("a"); ok {
		t.Errorf("the oldest line is still kept")
	}
	for _, cmd := range []string{"b", "c", "d"} {
		if _, ok := c.get(cmd); !ok {
			t.Errorf("%q was forgotten", cmd)
		}
	}
	if len(c.byCmd) != 3 || len(c.order) != 3 {
		t.Errorf("kept %d lines (%d in order), want 3", len(c.byCmd), len(c.order))
	}
}

// BenchmarkAnalyzeRepeated analyses the same short line again and again,
// as the scheduler, the policy and execute_command do for one call.
//
//	go test -run '^$' -bench AnalyzeRepeated ./internal/shellcmd
func BenchmarkAnalyzeRepeated(b *testing.B) {
	for _, way := range []struct {
		name string
		f    func(string) Analysis
	}{{"remembered", Analyze}, {"parsed", analyze}} {
		b.Run(way.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				way.f("go test ./...")
			}
		})
	}
}
