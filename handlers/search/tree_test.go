package search

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeTree creates files (path -> content) below dir.
func writeTree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// foldText spells words in the case variants (?i) patterns must find:
// Unicode simple folds to ASCII (KELVIN SIGN, LONG S), accented capitals,
// and Turkish dotted and dotless i, which fold with nothing.
const foldText = "École\nÉCOLE\nécole\nECOLE\n\u212Aelvin\nKELVIN kelvin\n\u017Ftatus\nSTATUS Status\n" +
	"ıd\nİD\nId id\nDEADLINE EXCEEDED\ncontext deadline exceeded\nDeprecated: use X\n\u212A\u212A\u017F\n"

// generatedTree builds a workspace exercising every selection rule: nested
// .gitignore files in a repository and in a nested repository, .ignore
// overriding .gitignore, .git/info/exclude, hidden entries, binary files,
// symlinks, CRLF and non-ASCII text.
func generatedTree(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	bigText := strings.Repeat("filler line for the buffer\n", 4000) // > 64 KiB
	writeTree(t, dir, map[string]string{
		".git/info/exclude": "excluded.txt\n",
		".git/HEAD":         "hello ref\n",
		".gitignore":        "*.log\nbuild/\n!keep.log\ninner.txt\n/rootonly.txt\n",
		".ignore":           "ign_by_ignore.txt\n",
		"a.txt":             "hello world\nsecond line\nfunc main() {\n}\nTODO: fix\n2024-01 release\n",
		"b.log":             "hello from an ignored log\n",
		"keep.log":          "hello kept log\n",
		"build/x.txt":       "hello in build\n",
		"excluded.txt":      "hello excluded\n",
		"ign_by_ignore.txt": "hello ignored by .ignore\n",
		"rootonly.txt":      "hello root only\n",
		"deep/rootonly.txt": "hello deep rootonly\n",
		".hidden.txt":       "hello hidden\n",
		".hdir/f.txt":       "hello in hidden dir\n",
		"sub/.gitignore":    "secret*\n",
		"sub/.ignore":       "!secret2.txt\n",
		"sub/secret.txt":    "hello secret\n",
		"sub/secret2.txt":   "hello secret two\n",
		"sub/public.txt":    "hello public\nsecret word\n",
		"sub/deeper/s.txt":  "package deeper\nhello\nfor x := range y {\n",
		"nested/.git/HEAD":  "ref\n",
		"nested/inner.txt":  "hello inner of nested repo\n",
		"nested/x.md":       "hello markdown\n",
		"nested/.gitignore": "*.md\n",
		"bin.dat":           "hello\x00binary\n",
		"late-bin.dat":      "hello early\n" + bigText + "\x00\nhello late\n",
		"near-bin.dat":      bigText + "hello near\n\x00\n",
		"unicode.txt":       "héllo wörld\n日本語のテキスト\nÉCOLE école\nnaïve café\ncrème brûlée\n",
		"crlf.txt":          "hello crlf\r\nline two\r\n\r\nend)\r\n",
		"trailing.txt":      "no newline at end hello",
		"spaces.txt":        "trailing spaces   \n\t\n   \nABC_123 DEF_9\n",
		"code.go":           "package main\n\nfunc main() {\n\tfor i := 0; i < 3; i++ {\n\t\tprintln(i)\n\t}\n}\n",
		"empty.txt":         "",
		"adjacent.txt":      "hello 1\nhello 2\nx\nhello 4\ny\nz\nhello 7\n",
		// Read in chunks (scan.go), with matches on both sides of a cut.
		"huge.txt": strings.Repeat(bigText+"hello chunk\nDeprecated\n", chunkSize/len(bigText)+2),
		// Case variants, also past the first fold window (fold.go).
		"fold.txt": foldText + bigText + foldText + strings.Repeat("x", foldWindow-3) + "DEPRECATED\n" + foldText,
	})
	if err := os.Symlink("a.txt", filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("sub", filepath.Join(dir, "linkdir")); err != nil {
		t.Fatal(err)
	}
	return dir
}
