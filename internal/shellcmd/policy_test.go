package shellcmd

import (
	"slices"
	"testing"
)

func TestPathArgs(t *testing.T) {
	tests := []struct {
		cmd  string
		want []string
	}{
		{"cat .env", []string{".env"}},
		{"grep x .env", []string{"x", ".env"}},
		{"cd d && cat f", []string{"d", "d/f"}},
		{"cd d; cat f", []string{"d", "d/f", "f"}},
		{"cd d\ncat f", []string{"d", "d/f", "f"}},
		{"cd nowhere || cat .env", []string{"nowhere", ".env"}},
		{"cd a && cd ../b && cat f", []string{"a", "b", "b/f"}},
		{"cd d | cat f", []string{"d", "f"}},
		{"(cd d) && cat f", []string{"d", "f"}},
		{"{ cd d; } && cat f", []string{"d", "d/f", "f"}},
		{"cd d && ls", []string{"d"}},
		{"cd .. && cat x", []string{"..", "../x"}},
		{"cd /etc && cat passwd", []string{"/etc", "/etc/passwd"}},
		{"cat /etc/passwd ../x a/../../y", []string{"/etc/passwd", "../x", "../y"}},
		{"cat ~/.ssh/id_rsa", []string{"~/.ssh/id_rsa"}},
		{"cd && cat f", []string{unknownDir + "/f"}},
		{"grep --file=.env -f.secret -- -x", []string{".env", ".secret", "-x"}},
		{"cat a -", []string{"a"}},
		{"ls .", []string{"."}},
		{"./run.sh x", []string{"run.sh", "x"}},
		{"cat < .env > out 2>&1", []string{".env", "out"}},
		{"> .env", []string{".env"}},
		{"sudo cat .env", []string{"cat", ".env"}},
		{"'c'at \".e\"nv", []string{".env"}},
		{"command cd d && cat f", []string{"cd", "d", "d/f"}},
		{"eval cd d && cat f", []string{"cd", "d", "f", "d/f"}}, // eval's failure is not tracked
		{"eval $X && cat f", []string{"$X", "f", unknownDir + "/f"}},
		{"source x.sh && cat f", []string{"x.sh", "f", unknownDir + "/f"}},
		{"f() { cd d; }; f && cat y", []string{"d", unknownDir + "/d", "y", unknownDir + "/y"}},
		{"CDPATH=/ cd etc && cat passwd", []string{"etc", unknownDir + "/passwd"}},
		{"env -C secret cat .env", []string{"secret", "secret/secret", "cat", "secret/cat", ".env", "secret/.env"}},
		{"git -C secret log", []string{"secret", "secret/secret", "log", "secret/log"}},
		{"git show HEAD:.env", []string{"show", "HEAD:.env", ".env"}},
		// A network URL's host is no path; a file: URL's path is one.
		{"curl http://localhost:8000/", []string{"http:/localhost:8000"}},
		{"curl -s https://127.0.0.1:3000/api?x=1", []string{"https:/127.0.0.1:3000/api?x=1"}},
		{"curl file:///etc/passwd", []string{"file:/etc/passwd", "///etc/passwd"}},
		{"curl 1http://x/y", []string{"1http:/x/y", "//x/y"}},
	}
	for _, tt := range tests {
		t.Run(tt.cmd, func(t *testing.T) {
			got := Analyze(tt.cmd).PathArgs()
			if !slices.Equal(got, tt.want) {
				t.Errorf("PathArgs(%q) = %q, want %q", tt.cmd, got, tt.want)
			}
		})
	}
}

func TestDir(t *testing.T) {
	a := Analyze("cd sub && ls; cd ../x/./y && pwd")
	var got []string
	for _, c := range a.Commands {
		got = append(got, c.Dir)
	}
	want := []string{"", "sub", "sub", "x/y"}
	if !slices.Equal(got, want) {
		t.Errorf("dirs = %q, want %q", got, want)
	}
}

func TestManyCdsStayBounded(t *testing.T) {
	cmd := ""
	for range 40 {
		cmd += "cd a; "
	}
	a := Analyze(cmd + "cat f")
	if got := len(a.Commands[len(a.Commands)-1].dirs); got > maxDirs {
		t.Errorf("possible dirs = %d, want <= %d", got, maxDirs)
	}
	if !slices.Contains(a.PathArgs(), unknownDir+"/f") {
		t.Errorf("PathArgs = %q, want it to hold %q", a.PathArgs(), unknownDir+"/f")
	}
	if !slices.Contains(kinds(a), KindCd) {
		t.Errorf("risks = %v, want cd", a.Risks)
	}
}

func TestMatchRule(t *testing.T) {
	tests := []struct {
		pattern, cmd string
		want         bool
	}{
		{"git status", "git status", true},
		{"git status", "'g'it  status", true},
		{"git status", "git status -s", false},
		{"git status", "git", false},
		{"npm run test:*", "npm run test", true},
		{"npm run test:*", "npm run test:unit", true},
		{"npm run test:*", "npm run test:unit --watch", true},
		{"npm run test:*", "npm run test --watch", true},
		{"npm run test:*", "npm run testing", false},
		{"npm run test:*", "npm run", false},
		{"npm run test:*", "npm run build", false},
		{"git diff *", "git diff", true},
		{"git diff *", "git diff HEAD~1 -- a", true},
		{"git diff *", "git diffx", false},
		{"git:*", "git push --force", true},
		{"git :*", "git push", true},
		{"*", "anything at all", true},
		{"cat *.md", "cat README.md", true},
		{"cat *.md", "cat README.md x", false},
		{"cat *.md", "cat .env", false},
		{"git * --help", "git log --help", true},
		{"git * --help", "git --help", true},
		{"git * --help", "git log -p", false},
		{"rm *", `r\m -rf /`, true},
		{"ls", "ls\t", true},
		{"", "ls", false},
	}
	for _, tt := range tests {
		t.Run(tt.pattern+" ~ "+tt.cmd, func(t *testing.T) {
			a := Analyze(tt.cmd)
			if len(a.Commands) != 1 {
				t.Fatalf("commands = %v, want 1", a.Commands)
			}
			if got := MatchRule(tt.pattern, a.Commands[0]); got != tt.want {
				t.Errorf("MatchRule(%q, %q) = %v, want %v", tt.pattern, a.Commands[0].Args, got, tt.want)
			}
		})
	}
}

func TestMatchRuleManyStars(t *testing.T) {
	args := make([]string, 2000)
	for i := range args {
		args[i] = "a"
	}
	pattern := "* * * * * * * * * * * * b"
	if MatchRule(pattern, SimpleCommand{Args: args}) {
		t.Error("MatchRule = true, want false")
	}
}

func TestReadOnly(t *testing.T) {
	tests := []struct {
		cmd  string
		want bool
	}{
		{"ls -la", true},
		{"cat a b | grep -n x | head -5", true},
		{"git status && git log --oneline -5", true},
		{"git --no-pager diff HEAD~1", true},
		{"git branch", true},
		{"git branch -a -v", true},
		{"git branch --list 'feat*'", true},
		{"git show HEAD:go.mod", true},
		{"git rev-parse --show-toplevel", true},
		{"go vet ./...", true},
		{"go env GOPATH", true},
		{"find . -name '*.go' -type f", true},
		{"rg -n foo src", true},
		{"sort a | uniq -c", true},
		{"wc -l *.go", true},
		{"tree -L 2", true},
		{"echo hi", true},
		{"date +%s", true},
		{"command -v go", true},
		{"cd sub && ls", false},
		{"rm x", false},
		{"sort -o out a", false},
		{"sort --output=out a", false},
		{"tree -o out", false},
		{"uniq in out", false},
		{"git branch -D main", false},
		{"git branch feature", false},
		{"git branch -m a b", false},
		{"git push", false},
		{"git -C .. status", false},
		{"git --git-dir=x log", false},
		{"git log --output=x", false},
		{"git diff --ext-diff", false},
		{"go env -w GOFLAGS=x", false},
		{"go vet -vettool=./x", false},
		{"go build", false},
		{"find . -fprint out", false},
		{"rg --pre ./x foo", false},
		{"date -s 2020-01-01", false},
		{"date 010100002020", false},
		{"file -C -m x", false},
		{"./ls", false},
		{"/bin/ls", false},
		{"npm test", false},
		{"command ls", false},
		{"ls > /tmp/x", false},
	}
	for _, tt := range tests {
		t.Run(tt.cmd, func(t *testing.T) {
			a := Analyze(tt.cmd)
			if got := a.ReadOnly(); got != tt.want {
				t.Errorf("Analyze(%q).ReadOnly() = %v, want %v (risks %v)", tt.cmd, got, tt.want, a.Risks)
			}
		})
	}
}

func TestLongRunning(t *testing.T) {
	tests := []struct {
		cmd  string
		want bool
	}{
		{"npm install", true},
		{"npm ci", true},
		{"npm test", true},
		{"npm run build", true},
		{"npm run test:unit", true},
		{"pnpm install", true},
		{"yarn", true},
		{"yarn build", true},
		{"go build ./...", true},
		{"go test -race ./...", true},
		{"go generate", true},
		{"cargo test", true},
		{"make", true},
		{"make -j4 all", true},
		{"pytest -x", true},
		{"python -m pytest", true},
		{"python3 -m pip install x", true},
		{"mvn package", true},
		{"./gradlew build", true},
		{"docker build .", true},
		{"docker compose up", true},
		{"pip install -r requirements.txt", true},
		{"bundle install", true},
		{"dotnet test", true},
		{"cd web && npm ci", true},
		{"timeout 600 go test ./...", true},
		{"ls", false},
		{"npm run lint", false},
		{"npm --version", false},
		{"go version", false},
		{"git status", false},
		{"python x.py", false},
		{"docker ps", false},
	}
	for _, tt := range tests {
		t.Run(tt.cmd, func(t *testing.T) {
			if got := Analyze(tt.cmd).LongRunning(); got != tt.want {
				t.Errorf("Analyze(%q).LongRunning() = %v, want %v", tt.cmd, got, tt.want)
			}
		})
	}
}

// TestMatchDenyRule: deny and ask rules also match as Claude Code matches
// a command's text (code.claude.com/docs/en/permissions, "Wildcard
// patterns": `Bash(ls*)` matches `ls -la` and `lsof`, `Bash(ls *)` only
// the first; `*` spans spaces), so a rule written for Claude Code denies
// at least what it denies there.
func TestMatchDenyRule(t *testing.T) {
	tests := []struct {
		pattern, cmd string
		deny, allow  bool
	}{
		{"rm*", "rm -rf /", true, false},
		{"ls*", "lsof -i", true, false},
		{"ls *", "lsof -i", false, false},
		{"ls *", "ls", true, true},
		{"git push*", "git push origin main", true, false},
		{"git push*", "git pull", false, false},
		{"cat *.md", "cat .env x.md", true, false},
		{"git * main", "git push origin main", true, true},
		{"rm:*", "rm -rf /", true, true},
		{"rm:*", "rmdir x", false, false},
		{"npm run test:*", "npm run build", false, false},
		{"git status", "git status -s", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.pattern+" ~ "+tt.cmd, func(t *testing.T) {
			a := Analyze(tt.cmd)
			if len(a.Commands) != 1 {
				t.Fatalf("commands = %v, want 1", a.Commands)
			}
			if got := MatchDenyRule(tt.pattern, a.Commands[0]); got != tt.deny {
				t.Errorf("MatchDenyRule(%q, %q) = %v, want %v", tt.pattern, a.Commands[0].Args, got, tt.deny)
			}
			if got := MatchRule(tt.pattern, a.Commands[0]); got != tt.allow {
				t.Errorf("MatchRule(%q, %q) = %v, want %v", tt.pattern, a.Commands[0].Args, got, tt.allow)
			}
		})
	}
}
