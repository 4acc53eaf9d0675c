package ignore

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// tree is the workspace most hand-picked scenarios are judged on: names that
// collide with glob syntax, hidden files, nested look-alikes.
var tree = []string{
	"a", "b", "c.txt", "a.txt", "foo.o", ".env", ".env.local", "abc", "abd", "a-c", "Qa",
	"#hash", "!bang", "sp ace", "trail ", "trail  ", "tab\t", "a[1]", "a*b", "q?", `back\slash`,
	"foo/bar", "foo/bar/baz", "foo/x.txt", "foo/foo/bar",
	"dir/a", "dir/b.txt", "dir/sub/a", "dir/sub/c.txt", "dir/dir/x", "dir/foo/bar",
	"x/foo/bar", "x/y/foo/bar.c", "x/y/z/a.txt", "x/bar",
	"build/out.o", "build/sub/out.o", "build/keep.txt", "src/build/x.o",
	"doc/a.md", "doc/sub/b.md", "doc/sub/deeper/c.md",
	"deep/a/b/c/d.txt", "node_modules/pkg/index.js", "src/node_modules/x.js",
	"empty/", "bar/", "c.txt.d/", "a.b/c",
}

// patterns are single-file root .gitignore contents, one scenario each.
var patterns = []string{
	// plain names, anchoring, directories
	"a", "/a", "a/", "/a/", "foo", "/foo", "foo/", "bar", "bar/", "/bar/", "c.txt/", "sub", "sub/",
	"foo/bar", "/foo/bar", "foo/bar/", "dir/sub", "dir/sub/", "sub/a", "/dir/a", "x/bar", "y/foo",
	// stars
	"*", "*.txt", "*.o", "/*.txt", "*/", "*/*", "/*/", "*/bar", "x/*", "x/*/bar", "*/foo/*",
	"a*", "*a", "*c*", "foo*", "/foo*", "x/foo*", "foo*/", "*.txt/", ".*", ".env*", "*.md",
	// double stars
	"**", "/**", "**/", "***", "**/foo", "**/foo/bar", "**/bar", "foo/**", "foo/**/", "x/**/bar",
	"x/**/bar.c", "x/**/*.c", "**/sub/**", "dir/**/c.txt", "doc/**", "deep/**/d.txt", "a/**/b",
	"foo**", "x/foo**", "**foo", "x/**foo", "**.txt", "foo/**bar", "**/**/bar", "/**/bar",
	"doc/**/", "**/node_modules", "node_modules/", "**/build/", "x/**", "deep/**/b/**",
	// ? and classes
	"?", "??", "a?c", "?.txt", "[ab]", "[a-c]*", "[!a]*", "[^a]*", "[]a]", "a[[]1]", "[a-]",
	"[-a]", "[z-a]", "ab[c-d]", "[[:alpha:]]*", "[[:digit:]]", "[[:upper:]]a", "[[:bogus:]]",
	"[[:alpha:]", "[", "a[", "[!]]", "[\\]]", "a[\\-]c", "[a\\-c]*", "[[:alpha:][:digit:]]*",
	"[[:space:]]*", "sp[[:space:]]ace", "*[[:punct:]]*", "a[]-z]c", "[!-]*", "[*]",
	// escapes and spaces
	`\#hash`, "#hash", `\!bang`, "!bang", "sp ace", "trail ", `trail\ `, `trail\ \ `, `trail \ `,
	`a\*b`, `a*b`, `q\?`, `\a`, `a\`, `\`, `back\\slash`, "tab\t", `*\ `, "a ", "c.txt  ",
	// negation and order
	"*.txt\n!c.txt", "!c.txt\n*.txt", "*\n!*/", "*\n!*.txt", "build/\n!build/out.o",
	"build/*\n!build/out.o", "build/**\n!build/sub/", "/*\n!/doc\n/doc/*\n!/doc/sub",
	"doc\n!doc/sub", "*.o\n!/build/*.o", "!a\na", "a\n!a", "dir\n!dir/sub", "dir/*\n!dir/sub\ndir/sub/*\n!dir/sub/c.txt",
	"/*\n!.env", "*.md\n!doc/**/*.md", "**/sub\n!doc/sub", "x/\n!x/y", "!/a\n/a", "foo/\n!foo/bar",
	// odd lines
	"\n\n", "# only a comment", " ", "!", "/", "!/", "//", "a//", "a\r", "\xef\xbb\xbfa", "a\x00b",
	"a\r\n#c\r\nb\r\n", "   a", "\\ ", "./a", "dir/./sub", "../a", "a/../b",
}

// nested are scenarios with ignore files in several directories.
var nested = []scenario{
	{name: "deeper negation wins", files: map[string]string{".gitignore": "*.txt", "dir/.gitignore": "!c.txt"}},
	{name: "deeper ignore wins", files: map[string]string{".gitignore": "!*.txt", "dir/.gitignore": "*.txt"}},
	{name: "anchored to file dir", files: map[string]string{"dir/.gitignore": "/sub\n/a"}},
	{name: "excluded dir hides its file", files: map[string]string{".gitignore": "dir/", "dir/.gitignore": "!sub\n!a"}},
	{name: "excluded parent wins over deeper", files: map[string]string{".gitignore": "/dir/sub", "dir/sub/.gitignore": "!*"}},
	{name: "file ignores itself", files: map[string]string{"dir/sub/.gitignore": "*"}},
	{name: "own dir name not matched", files: map[string]string{"dir/.gitignore": "dir\nsub/"}},
	{name: "three levels", files: map[string]string{".gitignore": "a\n*.md", "doc/.gitignore": "!*.md\n", "doc/sub/.gitignore": "b.md"}},
	{name: "double star in subdir", files: map[string]string{"x/.gitignore": "**/bar\n!y/**", "x/y/.gitignore": "foo/"}},
	{name: "slash pattern in subdir", files: map[string]string{"x/.gitignore": "y/foo\nfoo/bar"}},
	{name: "negated dir in subdir", files: map[string]string{".gitignore": "foo", "x/.gitignore": "!foo"}},
	{name: "gitignore ignored", files: map[string]string{".gitignore": ".gitignore", "doc/.gitignore": "*.md"}},
	{name: "trailing slash deeper", files: map[string]string{".gitignore": "sub", "dir/.gitignore": "!sub/"}},
	{name: "build re-include blocked", files: map[string]string{".gitignore": "build", "build/.gitignore": "!*"}},
	{name: "star slash in subdir", files: map[string]string{"deep/.gitignore": "*/b\n", "deep/a/.gitignore": "!b"}},
}

// genComponents are the pieces generated patterns are made of.
var genComponents = []string{
	"a", "b", "foo", "bar", "sub", "dir", "x", "y", "*", "?", "**", "a*", "*.txt", "*.o",
	"[ab]", "[!a]*", "[a-c]", "b?r", "f*o", "c.txt", `\*`, "[[:alpha:]]*", "*b", "**foo",
}

// genTree is the workspace generated scenarios are judged on.
var genTree = []string{
	"a.txt", "b", "c.o", "foo/bar", "foo/b.txt", "foo/a/b", "bar/foo", "bar/x.o", "ab", "ba",
	"dir/sub/a.txt", "dir/sub/foo/bar", "dir/b", "x/y/z/foo", "x/a", "sub/dir/c.o", "aa/bb/cc",
}

var genDirs = []string{"", "", "", "foo", "dir", "dir/sub", "x", "x/y", "bar"}

func genPattern(r *rand.Rand) string {
	var b strings.Builder
	if r.IntN(4) == 0 {
		b.WriteString("!")
	}
	if r.IntN(3) == 0 {
		b.WriteString("/")
	}
	n := 1 + r.IntN(3)
	for i := range n {
		if i > 0 {
			b.WriteString("/")
		}
		b.WriteString(genComponents[r.IntN(len(genComponents))])
	}
	if r.IntN(4) == 0 {
		b.WriteString("/")
	}
	return b.String()
}

// generated returns n random scenarios from a fixed seed: 1-4 root
// patterns and, in half of them, files in subdirectories.
func generated(n int) []scenario {
	r := rand.New(rand.NewPCG(1, 2))
	scs := make([]scenario, 0, n)
	for i := range n {
		files := map[string]string{}
		for f := 0; f < 1+r.IntN(2); f++ {
			dir := genDirs[r.IntN(len(genDirs))]
			var lines []string
			for range 1 + r.IntN(4) {
				lines = append(lines, genPattern(r))
			}
			name := ".gitignore"
			if dir != "" {
				name = dir + "/.gitignore"
			}
			files[name] += strings.Join(lines, "\n") + "\n"
		}
		scs = append(scs, scenario{name: fmt.Sprintf("gen%03d", i), files: files, paths: genTree})
	}
	return scs
}

func TestMatchAgainstGit(t *testing.T) {
	t.Parallel()
	var scs []scenario
	for _, p := range patterns {
		scs = append(scs, scenario{name: fmt.Sprintf("%q", p), files: map[string]string{".gitignore": p}, paths: tree})
	}
	for _, sc := range nested {
		sc.paths = tree
		scs = append(scs, sc)
	}
	scs = append(scs, generated(300)...)
	compareWithGit(t, scs)
}

// TestClassesAgainstGit judges every byte but '/' and NUL against each
// POSIX class, so the class tables are git's, not the locale's.
func TestClassesAgainstGit(t *testing.T) {
	t.Parallel()
	var names []string
	for c := 1; c < 256; c++ {
		if c != '/' {
			names = append(names, "c"+string([]byte{byte(c)}))
		}
	}
	var scs []scenario
	for _, cl := range []string{"alnum", "alpha", "blank", "cntrl", "digit", "graph", "lower",
		"print", "punct", "space", "upper", "xdigit"} {
		scs = append(scs, scenario{name: cl, files: map[string]string{".gitignore": "c[[:" + cl + ":]]"}, paths: names})
	}
	scs = append(scs, scenario{name: "range", files: map[string]string{".gitignore": "c[!\x01-~]"}, paths: names})
	compareWithGit(t, scs)
}
