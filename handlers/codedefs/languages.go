package codedefs

import (
	"path"
	"regexp"
	"strings"
)

// sourceExts are the file extensions (lower case) whose files are parsed.
// Every one of them is mapped to a ctags parser, by ctags' defaults or by
// mapArgs.
var sourceExts = map[string]bool{
	".go": true,
	".js": true, ".jsx": true, ".mjs": true, ".cjs": true,
	".ts": true, ".tsx": true, ".mts": true, ".cts": true,
	".py":   true,
	".rs":   true,
	".java": true,
	".c":    true, ".h": true,
	".cpp": true, ".hpp": true, ".cc": true, ".hh": true, ".cxx": true, ".hxx": true,
	".cs":  true,
	".rb":  true,
	".php": true,
	".kt":  true, ".kts": true,
}

// mapArgs teach ctags the extensions it does not map by itself. C and C++
// prototypes are off by default, but a header's prototypes are its
// definitions, so they are turned on.
var mapArgs = []string{
	"--map-TypeScript=+.tsx",
	"--map-TypeScript=+.mts",
	"--map-TypeScript=+.cts",
	"--map-JavaScript=+.cjs",
	"--kinds-C=+p",
	"--kinds-C++=+p",
}

// sourceExt returns the lower-case extension of name and whether files with
// it are parsed.
func sourceExt(name string) (string, bool) {
	ext := strings.ToLower(path.Ext(name))
	return ext, sourceExts[ext]
}

func kinds(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// defKinds selects, per ctags language, the kinds (long names) that count as
// definitions. Fields, variables, constants, enumerators, packages and
// imports are left out: they would drown the structure the tool is for.
var defKinds = map[string]map[string]bool{
	"Go":         kinds("func", "struct", "interface", "type", "talias"),
	"JavaScript": kinds("function", "class", "method", "generator", "getter", "setter"),
	// Cline's TypeScript query (used for .ts and .tsx) captures functions,
	// function and method signatures, classes, methods and modules only:
	// no interfaces, enums, type aliases or function-valued constants.
	"TypeScript": kinds("function", "class", "method", "namespace"),
	"Python":     kinds("class", "function", "member"),
	"Rust":       kinds("module", "struct", "interface", "implementation", "function", "method", "enum", "typedef", "macro"),
	"Java":       kinds("class", "interface", "enum", "method", "annotation"),
	"C":          kinds("function", "prototype", "struct", "union", "enum", "typedef"),
	"C++":        kinds("function", "prototype", "class", "struct", "union", "enum", "typedef"),
	"C#":         kinds("class", "interface", "struct", "enum", "method", "namespace"),
	"Ruby":       kinds("class", "module", "method", "singletonMethod"),
	"PHP":        kinds("class", "interface", "trait", "function"),
	"Kotlin":     kinds("class", "interface", "object", "method", "typealias"),
}

// valueKinds are JavaScript kinds that name a value; they are
// definitions when the value is a function (`const f = () => ...`), which
// ctags reports as a constant or variable, not as a function.
var valueKinds = kinds("constant", "variable", "field", "property")

// funcValue matches an assignment of a function expression or an arrow
// function on the definition's first line.
var funcValue = regexp.MustCompile(`=\s*(async\s+)?(function\b|(\([^()]*\)|[A-Za-z_$][\w$]*)\s*(:[^=]*)?=>)`)

// isDefinition reports whether a tag of the given language and kind, whose
// first source line is text, is listed.
func isDefinition(language, kind, text string) bool {
	if defKinds[language][kind] {
		return true
	}
	if language == "JavaScript" && valueKinds[kind] {
		return funcValue.MatchString(text)
	}
	return false
}
