package ignore

import (
	"strings"
	"testing"
)

// typical is a .gitignore of the usual size and mix.
const typical = `# deps
node_modules/
vendor/
/dist
/build/
*.log
*.tmp
.env
.env.*
!.env.example
coverage/
**/__pycache__/
*.py[cod]
.DS_Store
*.swp
/.idea/
/.vscode/*
!/.vscode/settings.json
target/
*.o
*.so
bin/
!bin/keep
docs/_build/
**/testdata/**/*.golden
`

var benchPaths = []string{
	"main.go", "cmd/toolgate/main.go", "coordinator/ignore/matcher.go",
	"web/src/components/button/index.tsx", "web/node_modules/react/index.js",
	"server/testdata/a/b/c.golden", "docs/guide/intro.md", ".env.example", "pkg/a/b/c/d/e/f.txt",
}

func BenchmarkMatch(b *testing.B) {
	m := NewMatcher(ParseRules(".gitignore", "", []byte(typical)))
	b.Run("Match", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			m.Match(benchPaths[i%len(benchPaths)], false)
		}
	})
	b.Run("MatchOne", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			m.MatchOne(benchPaths[i%len(benchPaths)], false)
		}
	})
}

// BenchmarkHostile judges a 100-component, 2 KiB path against patterns
// built to make glob matching backtrack.
func BenchmarkHostile(b *testing.B) {
	m := NewMatcher(ParseRules(".clineignore", "", []byte("**/*a*a*a*a*a*b\n*a*a*a*a*a*b\na/**/a/**/a/**/b\n")))
	p := strings.Repeat("aaaaaaaaaaaaaaaaaaaa/", 100) + "c"
	b.Run("Match", func(b *testing.B) {
		for b.Loop() {
			m.Match(p, false)
		}
	})
	b.Run("MatchOne", func(b *testing.B) {
		for b.Loop() {
			m.MatchOne(p, false)
		}
	})
}
