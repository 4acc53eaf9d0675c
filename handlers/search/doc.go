// Package search is toolgate's native file search and workspace walker: it
// answers search_files the way ripgrep does (same files, same matching lines)
// and formats the answer the way Cline prints ripgrep results, and it lists
// directories for list_files with the same ignore semantics.
//
// File selection follows ripgrep's defaults: .gitignore files (only inside a
// git repository), .ignore and .rgignore files, .git/info/exclude, hidden
// entries skipped, binary files (a NUL byte) skipped, symbolic links never
// followed. With Options.GlobOverride the file pattern (or '*') overrides
// those rules as ripgrep's --glob does, which is how Cline runs ripgrep.
// Every file access goes through an *os.Root, so neither a symlink nor a
// path can lead outside the workspace.
//
// Patterns use Rust regex syntax, as Cline documents. Go's RE2 engine covers
// most of it; Unicode-aware \w, \d and \s and Rust's \u escapes are
// translated, and constructs RE2 cannot run (look-around, backreferences,
// nested classes) are rejected with an error that names them.
package search
