package shellcmd

import "strings"

// MatchRule reports whether a permission rule matches one simple command.
// pattern is the text inside execute_command(...), in Claude Code's syntax,
// split into words at spaces (it has no quoting):
//
//   - words match the command's unquoted argument values, never its source
//     text, so `'g'it  status` matches the rule `git status`;
//   - without "*" the words must equal the arguments exactly;
//   - a final word ending in ":*" makes a prefix rule: `npm run test:*`
//     matches `npm run test`, `npm run test:unit` and `npm run test --watch`
//     (the last word matches itself or itself followed by ":..."), but not
//     `npm run testing`;
//   - a word that is exactly "*" matches any number of arguments, none
//     included, so `git *` matches `git` and `git log -p`, and `X *` is the
//     word-boundary prefix rule for X;
//   - any other "*" matches any run of characters within one argument:
//     `cat *.md` matches `cat README.md`.
//
// A rule only describes the words: callers must still refuse to
// auto-approve a line whose Analysis has a blocking risk, since `echo *`
// matches `echo $(rm -rf ~)` word for word.
func MatchRule(pattern string, cmd SimpleCommand) bool {
	words := strings.Fields(pattern)
	if len(words) == 0 || len(cmd.Args) == 0 {
		return false
	}
	last := words[len(words)-1]
	if stem, ok := strings.CutSuffix(last, ":*"); ok {
		if stem == "" {
			words[len(words)-1] = "*"
			return matchWords(words, cmd.Args)
		}
		n := len(words)
		if len(cmd.Args) < n || !matchWords(words[:n-1], cmd.Args[:n-1]) {
			return false
		}
		arg := cmd.Args[n-1]
		return matchWord(stem, arg) || prefixColon(stem, arg)
	}
	return matchWords(words, cmd.Args)
}

// MatchDenyRule reports whether a deny or ask rule covers one simple
// command: as MatchRule matches it, or as Claude Code matches the
// command's text (code.claude.com/docs/en/permissions, "Wildcard
// patterns": "*" is any run of characters, spaces included, so `ls*`
// matches `ls -la` and `lsof`, and `git push*` matches `git push origin
// main`). A deny rule written for Claude Code thus refuses at least what
// it refuses there. Allow rules keep MatchRule's words, which allow less:
// `cat *.md` does not allow `cat .env x.md`.
func MatchDenyRule(pattern string, cmd SimpleCommand) bool {
	if MatchRule(pattern, cmd) {
		return true
	}
	pattern = strings.Join(strings.Fields(pattern), " ")
	if !strings.Contains(pattern, "*") || strings.HasSuffix(pattern, ":*") || len(cmd.Args) == 0 {
		return false
	}
	return matchWord(pattern, strings.Join(cmd.Args, " "))
}

// prefixColon reports whether arg is stem followed by ":" and anything.
func prefixColon(stem, arg string) bool {
	i := strings.LastIndex(arg, ":")
	for i >= 0 {
		if matchWord(stem, arg[:i]) {
			return true
		}
		i = strings.LastIndex(arg[:i], ":")
	}
	return false
}

// matchWords matches pattern words against arguments, "*" standing for any
// number of arguments (dynamic programming over both lists, so a hostile
// command line cannot make it exponential).
func matchWords(pats, args []string) bool {
	// ok[j] reports whether the patterns seen so far match args[:j].
	ok := make([]bool, len(args)+1)
	ok[0] = true
	for _, p := range pats {
		next := make([]bool, len(args)+1)
		for j := range ok {
			switch {
			case p == "*":
				next[j] = ok[j] || (j > 0 && next[j-1])
			case j > 0:
				next[j] = ok[j-1] && matchWord(p, args[j-1])
			}
		}
		ok = next
	}
	return ok[len(args)]
}

// matchWord matches one pattern word, in which "*" is any run of
// characters, against one argument, in linear-times-pattern time.
func matchWord(p, s string) bool {
	parts := strings.Split(p, "*")
	if len(parts) == 1 {
		return p == s
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	for _, mid := range parts[1 : len(parts)-1] {
		i := strings.Index(s, mid)
		if i < 0 {
			return false
		}
		s = s[i+len(mid):]
	}
	return strings.HasSuffix(s, parts[len(parts)-1])
}
