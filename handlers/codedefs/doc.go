// Package codedefs is the engine of the list_code_definition_names tool: for
// the source files at the top level of one workspace directory it lists the
// definitions (functions, methods, types, classes, interfaces, enums, traits,
// impls) by printing the source line each one starts on, grouped per file in
// the layout Cline gives its tree-sitter captures:
//
//	main.go
//	|----
//	│type Server struct {
//	|----
//	│func (s *Server) Run() error {
//	|----
//
// A "|----" line stands between two printed lines that are not adjacent in
// the file, and opens and closes each file's block.
//
// Definitions come from Universal Ctags rather than tree-sitter: one
// ctags binary knows more than a hundred languages, and there are no cgo
// grammar builds to keep working per language and per platform. ctags runs
// once per call, over all the selected files in one process, under the
// caller's context and a timeout.
//
// Confinement: every workspace file is opened and read through the
// workspace's *os.Root, and only regular files (never symlinks) are taken.
// ctags never sees a workspace path at all: it parses private copies of the
// bytes that were read through the root, in a fresh temporary directory, so a
// symlink swapped in after the check cannot make it read anything else, and
// the line numbers it reports always match the text that is printed. It also
// runs with --options=NONE, so a .ctags.d directory planted in a repository
// cannot inject options.
package codedefs
