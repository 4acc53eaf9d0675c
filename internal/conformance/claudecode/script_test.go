package claudecode

// obj is a tool input.
type obj = map[string]any

// Placeholders in the script's strings, filled in per side: {WS} is the
// side's workspace; {WEB} the local web server both sides fetch from;
// {BG1} and {BG2} the ids of the background commands started before,
// {OUTBG1} and {OUTBG2} the files their answers say hold their output,
// {SAVED} the file the last long output was saved to (all read from
// that side's own results).
const (
	wsPH  = "{WS}"
	webPH = "{WEB}"
)

// script is the conversation the mock model plays: one tool_use a turn,
// reaching every tool and every error path that can be provoked. Grep
// calls that show lines search one file or one match: ripgrep walks
// directories in parallel, so the order of several files' lines changes
// from run to run, on either side.
var script = []call{
	// Read
	{"Read", obj{"file_path": "{WS}/README.md"}, "read a file"},
	{"Read", obj{"file_path": "{WS}/big.txt"}, "over 2000 lines, default limit"},
	{"Read", obj{"file_path": "{WS}/big.txt", "offset": 2400, "limit": 50}, "offset and limit"},
	{"Read", obj{"file_path": "{WS}/big.txt", "offset": 3000}, "offset past the end"},
	{"Read", obj{"file_path": "{WS}/README.md", "offset": 3, "limit": 2}, "small window"},
	{"Read", obj{"file_path": "{WS}/long_lines.txt"}, "lines over 2000 characters"},
	{"Read", obj{"file_path": "{WS}/missing.txt"}, "missing file"},
	{"Read", obj{"file_path": "{WS}/src"}, "a directory"},
	{"Read", obj{"file_path": "{WS}/empty.txt"}, "empty file"},
	{"Read", obj{"file_path": "{WS}/data.bin"}, "binary file"},
	{"Read", obj{"file_path": "{WS}/image.png"}, "PNG image"},
	{"Read", obj{"file_path": "{WS}/notebook.ipynb"}, "notebook"},
	{"Read", obj{"file_path": "{WS}/doc.pdf"}, "PDF"},
	{"Read", obj{"file_path": "{WS}/doc.pdf", "pages": "2"}, "PDF pages"},
	{"Read", obj{"file_path": "README.md"}, "relative path"},
	{"Read", obj{"file_path": "{WS}/crlf.txt"}, "CRLF text"},
	{"Read", obj{"file_path": "{WS}/unicode.txt"}, "unicode"},
	{"Read", obj{"file_path": "{WS}/no_newline.txt"}, "no final newline"},
	{"Read", obj{"file_path": "{WS}/README.md", "limit": 0}, "limit 0 (invalid)"},
	{"Read", obj{"path": "{WS}/README.md"}, "file_path missing (invalid)"},
	{"Read", obj{"file_path": "{WS}/README.md", "offset": "two"}, "offset of the wrong type (invalid)"},
	{"Read", obj{"file_path": "{WS}/build/out.txt"}, "gitignored file"},
	// Write
	{"Write", obj{"file_path": "{WS}/new/dir/created.txt", "content": "created\nin a new directory\n"}, "new file in a new directory"},
	{"Write", obj{"file_path": "{WS}/edit/overwrite.txt", "content": "replaced\n"}, "overwrite without a prior read"},
	{"Read", obj{"file_path": "{WS}/edit/overwrite.txt"}, "read before overwrite"},
	{"Write", obj{"file_path": "{WS}/edit/overwrite.txt", "content": "new content\nto be kept\n"}, "overwrite after a read"},
	{"Write", obj{"file_path": "relative.txt", "content": "x\n"}, "relative path"},
	{"Write", obj{"file_path": "{WS}/nocontent.txt"}, "content missing (invalid)"},
	{"Write", obj{"file_path": "{WS}/src", "content": "x"}, "a directory"},
	// Edit
	{"Edit", obj{"file_path": "{WS}/edit/unread.txt", "old_string": "never", "new_string": "now"}, "without a prior read"},
	{"Read", obj{"file_path": "{WS}/edit/target.txt"}, "read before edits"},
	{"Edit", obj{"file_path": "{WS}/edit/target.txt", "old_string": "gamma", "new_string": "GAMMA"}, "ok"},
	{"Edit", obj{"file_path": "{WS}/edit/target.txt", "old_string": "beta", "new_string": "b"}, "not unique"},
	{"Edit", obj{"file_path": "{WS}/edit/target.txt", "old_string": "zeta", "new_string": "z"}, "not found"},
	{"Edit", obj{"file_path": "{WS}/edit/target.txt", "old_string": "beta", "new_string": "BETA", "replace_all": true}, "replace_all"},
	{"Edit", obj{"file_path": "{WS}/edit/target.txt", "old_string": "delta", "new_string": "delta"}, "unchanged"},
	{"Read", obj{"file_path": "{WS}/edit/crlf_edit.txt"}, "read CRLF file"},
	{"Edit", obj{"file_path": "{WS}/edit/crlf_edit.txt", "old_string": "change me", "new_string": "changed"}, "CRLF file"},
	{"Edit", obj{"file_path": "{WS}/edit/fresh.txt", "old_string": "", "new_string": "made by Edit\n"}, "create with empty old_string"},
	{"Edit", obj{"file_path": "{WS}/edit/absent.txt", "old_string": "x", "new_string": "y"}, "missing file"},
	{"Edit", obj{"file_path": "{WS}/edit/target.txt", "old_string": "alpha"}, "new_string missing (invalid)"},
	// Bash
	{"Bash", obj{"command": "echo hello", "description": "Print hello"}, "ok"},
	{"Bash", obj{"command": "false"}, "failing"},
	{"Bash", obj{"command": "echo out; echo err 1>&2"}, "stdout and stderr"},
	{"Bash", obj{"command": "echo before; exit 3"}, "exit code 3"},
	{"Bash", obj{"command": "cat nope.txt"}, "failing with stderr"},
	{"Bash", obj{"command": "sleep 5", "timeout": 1000}, "timeout in milliseconds"},
	{"Bash", obj{"command": "seq 1 20000"}, "long output"},
	{"Read", obj{"file_path": "{SAVED}", "offset": 19998}, "the long output's file, its end"},
	{"Bash", obj{"command": "cd src && pwd"}, "cd"},
	{"Bash", obj{"command": "pwd"}, "cwd kept after cd"},
	{"Bash", obj{"command": "cd {WS} && ls"}, "cd back, ls"},
	{"Bash", obj{"command": "git status --short"}, "git status after edits"},
	{"Bash", obj{"command": "printf 'no newline'"}, "no final newline"},
	{"Bash", obj{"command": "echo in the sandbox", "dangerouslyDisableSandbox": false}, "dangerouslyDisableSandbox false"},
	{"Bash", obj{"command": "echo started; sleep 0.5; echo finished", "run_in_background": true}, "run_in_background"},
	{"TaskOutput", obj{"task_id": "{BG1}"}, "background output, block and timeout left to their defaults"},
	{"Read", obj{"file_path": "{OUTBG1}"}, "the background command's output file"},
	{"Bash", obj{"command": "sleep 60", "run_in_background": true}, "second background command"},
	{"TaskOutput", obj{"task_id": "{BG2}", "block": false}, "still running, timeout left out"},
	{"TaskStop", obj{"task_id": "{BG2}"}, "stop it"},
	{"TaskOutput", obj{"task_id": "nosuchtask", "block": false, "timeout": 1000}, "unknown task"},
	{"Bash", obj{"description": "no command"}, "command missing (invalid)"},
	// Glob
	{"Glob", obj{"pattern": "**/*.go"}, "recursive"},
	{"Glob", obj{"pattern": "*.txt"}, "top level, order"},
	{"Glob", obj{"pattern": "**/*", "path": "{WS}/src"}, "under a path"},
	{"Glob", obj{"pattern": "*.nomatch"}, "no match"},
	{"Glob", obj{"pattern": "**/*.log"}, "gitignored files"},
	{"Glob", obj{"pattern": "*", "path": "{WS}/nosuchdir"}, "missing directory"},
	{"Glob", obj{"pattern": "*.py", "path": "src/lib"}, "relative path"},
	// Grep
	{"Grep", obj{"pattern": "needle"}, "files_with_matches (default)"},
	{"Grep", obj{"pattern": "needle", "output_mode": "content", "path": "{WS}/docs/notes.txt"}, "content"},
	{"Grep", obj{"pattern": "needle", "output_mode": "content", "-n": false, "path": "{WS}/src/main.go"}, "content without line numbers"},
	{"Grep", obj{"pattern": "needle", "output_mode": "count", "path": "{WS}/big.txt"}, "count"},
	{"Grep", obj{"pattern": "NEEDLE", "-i": true, "output_mode": "content", "path": "{WS}/docs/notes.txt"}, "-i"},
	{"Grep", obj{"pattern": "needle", "output_mode": "content", "-A": 1, "glob": "*.md"}, "-A"},
	{"Grep", obj{"pattern": "needle", "output_mode": "content", "-B": 1, "path": "{WS}/docs/notes.txt"}, "-B on a file"},
	{"Grep", obj{"pattern": "needle", "output_mode": "content", "-C": 1, "path": "{WS}/src/main.go"}, "-C"},
	{"Grep", obj{"pattern": "fox", "output_mode": "content", "context": 2, "path": "{WS}/README.md"}, "context, no match"},
	{"Grep", obj{"pattern": "line 0[0-9]00", "output_mode": "content", "head_limit": 3}, "head_limit"},
	{"Grep", obj{"pattern": "needle", "offset": 2, "head_limit": 2}, "offset and head_limit"},
	{"Grep", obj{"pattern": "func Reverse", "glob": "*.go", "output_mode": "content"}, "glob filter"},
	{"Grep", obj{"pattern": "TODO", "type": "py", "output_mode": "content"}, "type filter"},
	{"Grep", obj{"pattern": "alpha\\nBETA", "multiline": true, "output_mode": "content"}, "multiline"},
	{"Grep", obj{"pattern": "ne+dle", "-o": true, "output_mode": "content", "path": "{WS}/docs/notes.txt"}, "-o"},
	{"Grep", obj{"pattern": "(unclosed", "output_mode": "content"}, "invalid regex"},
	{"Grep", obj{"pattern": "needle", "output_mode": "count", "path": "{WS}/nosuchdir"}, "missing path"},
	{"Grep", obj{"pattern": "needle", "output_mode": "lines"}, "bad output_mode (invalid)"},
	// NotebookEdit
	{"NotebookEdit", obj{"notebook_path": "{WS}/notebook.ipynb", "cell_id": "compute", "new_source": "x = 7 * 6\nprint(x)"}, "replace a cell"},
	{"NotebookEdit", obj{"notebook_path": "{WS}/notebook.ipynb", "cell_id": "intro", "new_source": "## Inserted", "cell_type": "markdown", "edit_mode": "insert"}, "insert after a cell"},
	{"NotebookEdit", obj{"notebook_path": "{WS}/notebook.ipynb", "cell_id": "empty", "new_source": "", "edit_mode": "delete"}, "delete a cell"},
	{"NotebookEdit", obj{"notebook_path": "{WS}/notebook.ipynb", "cell_id": "nosuchcell", "new_source": "x"}, "unknown cell"},
	{"NotebookEdit", obj{"notebook_path": "{WS}/README.md", "new_source": "x"}, "not a notebook"},
	{"Read", obj{"file_path": "{WS}/notebook.ipynb"}, "notebook after edits"},
	// TodoWrite
	{"TodoWrite", obj{"todos": []any{
		obj{"content": "Read the code", "status": "completed", "activeForm": "Reading the code"},
		obj{"content": "Write the tests", "status": "in_progress", "activeForm": "Writing the tests"},
	}}, "a list"},
	{"TodoWrite", obj{"todos": []any{obj{"content": "x", "status": "later", "activeForm": "x"}}}, "bad status (invalid)"},
	{"TodoWrite", obj{"todos": []any{obj{"content": "Run the tests", "status": "pending"}}}, "activeForm missing (invalid)"},
	{"TodoWrite", obj{"todos": []any{obj{"content": "Run the tests", "status": "pending", "activeForm": "Running the tests", "id": "1"}}}, "an item with an id"},
	// WebFetch
	{"WebFetch", obj{"url": "{WEB}/page.html", "prompt": "What does the page say?"}, "an HTML page"},
	{"WebFetch", obj{"url": "{WEB}/missing", "prompt": "What does it say?"}, "a 404"},
	{"WebFetch", obj{"url": "not a url", "prompt": "x"}, "bad url (invalid)"},
	// A file changed behind the session's back (by a command; Claude Code
	// tells its model and lets the edit through, toolgate asks for a new
	// Read: README), then set back; a command without output; edits after
	// the session's own write; an Edit of a notebook; a brace glob; a
	// search of CRLF lines.
	{"Write", obj{"file_path": "{WS}/edit/stale.txt", "content": "original line\n"}, "a file a command changes next"},
	{"Bash", obj{"command": "echo appended >> edit/stale.txt"}, "the command changes it (no output)"},
	{"Edit", obj{"file_path": "{WS}/edit/stale.txt", "old_string": "original", "new_string": "edited"}, "edit after a change behind its back"},
	{"Bash", obj{"command": "echo restored > edit/stale.txt"}, "set back"},
	{"Write", obj{"file_path": "{WS}/edit/written.txt", "content": "one\ntwo\n"}, "a new file"},
	{"Edit", obj{"file_path": "{WS}/edit/written.txt", "old_string": "two", "new_string": "2"}, "edit after its write, no read"},
	{"Edit", obj{"file_path": "{WS}/notebook.ipynb", "old_string": "x", "new_string": "y"}, "Edit of a notebook"},
	// Edits as models write them: curly quotes for the file's straight
	// ones, a multi-line old_string with LF in a CRLF file, trailing
	// spaces in new_string; a Write of LF text over a CRLF file.
	{"Read", obj{"file_path": "{WS}/src/main.go"}, "read before quote edits"},
	{"Edit", obj{"file_path": "{WS}/src/main.go", "old_string": "name := \u201cworld\u201d", "new_string": "name := \u201cthere\u201d"}, "curly quotes"},
	{"Edit", obj{"file_path": "{WS}/edit/crlf_edit.txt", "old_string": "keep\nchanged", "new_string": "kept\nchanged"}, "multi-line, CRLF file"},
	{"Edit", obj{"file_path": "{WS}/edit/written.txt", "old_string": "one", "new_string": "uno   "}, "trailing spaces"},
	{"Write", obj{"file_path": "{WS}/crlf.txt", "content": "rewritten\nwith LF\n"}, "LF over a CRLF file"},
	{"Glob", obj{"pattern": "src/**/*.{go,py}"}, "braces"},
	// Commands as models write them: one reading its standard input,
	// a timeout over Bash's maximum, stderr alone from a command that
	// succeeds; a Read from offset 0.
	{"Bash", obj{"command": "cat", "timeout": 5000}, "reading stdin"},
	{"Bash", obj{"command": "echo ok", "timeout": 900000}, "timeout over the maximum"},
	{"Bash", obj{"command": "echo warn >&2"}, "stderr alone, exit 0"},
	{"Read", obj{"file_path": "{WS}/docs/guide.md", "offset": 0, "limit": 2}, "offset 0"},
	{"Grep", obj{"pattern": "needle", "output_mode": "content", "path": "{WS}/crlf.txt"}, "CRLF lines"},
	// Unknown tool
	{"NoSuchTool", obj{"x": 1}, "unknown tool"},
	// Files after everything
	{"Bash", obj{"command": "git status --short && cat edit/target.txt"}, "state at the end"},
}
