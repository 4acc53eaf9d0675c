package search

// fileTypes are the globs of ripgrep's most used --type names (rg
// --type-list), for Grep's type parameter.
var fileTypes = map[string][]string{
	"c":          {"*.c", "*.h"},
	"cpp":        {"*.cpp", "*.cc", "*.cxx", "*.hpp", "*.hh", "*.hxx", "*.h"},
	"cs":         {"*.cs"},
	"css":        {"*.css", "*.scss"},
	"go":         {"*.go"},
	"html":       {"*.html", "*.htm"},
	"java":       {"*.java"},
	"js":         {"*.js", "*.jsx", "*.mjs", "*.cjs", "*.vue"},
	"json":       {"*.json"},
	"kotlin":     {"*.kt", "*.kts"},
	"lua":        {"*.lua"},
	"markdown":   {"*.md", "*.markdown", "*.mdx"},
	"md":         {"*.md", "*.markdown", "*.mdx"},
	"php":        {"*.php"},
	"py":         {"*.py", "*.pyi"},
	"python":     {"*.py", "*.pyi"},
	"rb":         {"*.rb", "*.gemspec", "Gemfile", "Rakefile"},
	"ruby":       {"*.rb", "*.gemspec", "Gemfile", "Rakefile"},
	"rust":       {"*.rs"},
	"sh":         {"*.sh", "*.bash", "*.zsh", ".bashrc", ".zshrc"},
	"sql":        {"*.sql"},
	"swift":      {"*.swift"},
	"toml":       {"*.toml"},
	"ts":         {"*.ts", "*.tsx", "*.cts", "*.mts"},
	"typescript": {"*.ts", "*.tsx", "*.cts", "*.mts"},
	"xml":        {"*.xml"},
	"yaml":       {"*.yaml", "*.yml"},
}

// TypeGlob is the --glob pattern of a ripgrep file type name, and false
// for a name it does not know.
func TypeGlob(name string) (string, bool) {
	globs, ok := fileTypes[name]
	if !ok {
		return "", false
	}
	if len(globs) == 1 {
		return globs[0], true
	}
	p := "{"
	for i, g := range globs {
		if i > 0 {
			p += ","
		}
		p += g
	}
	return p + "}", true
}
