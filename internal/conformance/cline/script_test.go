package cline

import (
	"encoding/json"
	"fmt"
	"path"
	"strings"
)

// call is one tool call of the script.
type call struct {
	ID   string
	Tool string
	Args []arg
	// Headless calls run in Cline's headless mode: its ACP mode cannot
	// search, and the headless run of the native mode uses a GPT-5 model,
	// whose tool specs offer apply_patch.
	Headless bool
	// Only names the one mode the call runs in ("xml" or "native"); both
	// when empty.
	Only string
	// Answer is the user's reply to an interactive call.
	Answer string
}

// arg is one parameter as the model writes it: a string, bool or int.
type arg struct {
	Name  string
	Value any
}

func a(name string, v any) arg { return arg{name, v} }

// progress is the task_progress checklist every call but
// execute_command carries (Cline's native execute_command has no such
// parameter).
const progress = "- [x] start\n- [ ] run the script"

// script is the calls, in the order the model makes them.
func script() []call {
	diff := func(blocks ...[2]string) string {
		var b strings.Builder
		for _, bl := range blocks {
			fmt.Fprintf(&b, "------- SEARCH\n%s\n=======\n%s\n+++++++ REPLACE\n", bl[0], bl[1])
		}
		return strings.TrimSuffix(b.String(), "\n")
	}
	return []call{
		{ID: "read-unicode", Tool: "read_file", Args: []arg{a("path", "README.md")}},
		{ID: "read-big", Tool: "read_file", Args: []arg{a("path", "big.txt")}},
		{ID: "read-range", Tool: "read_file", Args: []arg{a("path", "big.txt"), a("start_line", 1100), a("end_line", 1105)}},
		{ID: "read-from", Tool: "read_file", Args: []arg{a("path", "big.txt"), a("start_line", 1190)}},
		{ID: "read-crlf", Tool: "read_file", Args: []arg{a("path", "crlf.txt")}},
		{ID: "read-missing", Tool: "read_file", Args: []arg{a("path", "missing.txt")}},
		{ID: "read-dir", Tool: "read_file", Args: []arg{a("path", "src")}},
		{ID: "read-ignored", Tool: "read_file", Args: []arg{a("path", "secret.env")}},
		{ID: "read-ignored-dir", Tool: "read_file", Args: []arg{a("path", "private/keys.txt")}},
		{ID: "read-image", Tool: "read_file", Args: []arg{a("path", "image.png")}},
		{ID: "read-pdf", Tool: "read_file", Args: []arg{a("path", "doc.pdf")}},
		{ID: "read-go", Tool: "read_file", Args: []arg{a("path", "src/main.go")}},

		{ID: "write-new", Tool: "write_to_file", Args: []arg{a("path", "notes/new.md"), a("content", "# New\n\nmade by the script\n")}},
		{ID: "write-overwrite", Tool: "write_to_file", Args: []arg{a("path", "overwrite.txt"), a("content", "new content\nsecond line\n")}},
		{ID: "write-empty", Tool: "write_to_file", Args: []arg{a("path", "empty.txt"), a("content", "")}},
		{ID: "write-unicode", Tool: "write_to_file", Args: []arg{a("path", "unicode.txt"), a("content", "Grüße ✓ 日本語\n")}},
		{ID: "write-ignored", Tool: "write_to_file", Args: []arg{a("path", "secret.env"), a("content", "API_KEY=x\n")}},
		{ID: "write-crlf", Tool: "write_to_file", Args: []arg{a("path", "crlf-new.txt"), a("content", "one\r\ntwo\r\n")}},

		{ID: "edit-ok", Tool: "replace_in_file", Args: []arg{a("path", "edit.txt"), a("diff", diff([2]string{"beta", "BETA"}))}},
		{ID: "edit-notfound", Tool: "replace_in_file", Args: []arg{a("path", "edit.txt"), a("diff", diff([2]string{"epsilon", "EPSILON"}))}},
		{ID: "edit-blocks", Tool: "replace_in_file", Args: []arg{a("path", "edit.txt"), a("diff", diff([2]string{"alpha", "ALPHA"}, [2]string{"delta", "DELTA"}))}},
		{ID: "edit-crlf", Tool: "replace_in_file", Args: []arg{a("path", "crlf.txt"), a("diff", diff([2]string{"second line", "2nd line"}))}},
		{ID: "edit-missing", Tool: "replace_in_file", Args: []arg{a("path", "nothere.txt"), a("diff", diff([2]string{"a", "b"}))}},
		{ID: "edit-ignored", Tool: "replace_in_file", Args: []arg{a("path", "private/keys.txt"), a("diff", diff([2]string{"private key material", "x"}))}},
		// What models send often: a SEARCH line indented otherwise than
		// the file's, blocks out of the file's order, an empty SEARCH (the
		// whole file replaced), content wrapped in a code fence, a start
		// line past the end.
		{ID: "edit-trimmed", Tool: "replace_in_file", Args: []arg{a("path", "edit.txt"), a("diff", diff([2]string{"  gamma  ", "GAMMA"}))}},
		{ID: "edit-order", Tool: "replace_in_file", Args: []arg{a("path", "edit.txt"), a("diff", diff([2]string{"DELTA", "delta"}, [2]string{"ALPHA", "alpha"}))}},
		{ID: "write-whole", Tool: "write_to_file", Args: []arg{a("path", "notes/whole.txt"), a("content", "one\ntwo\n")}},
		{ID: "edit-empty-search", Tool: "replace_in_file", Args: []arg{a("path", "notes/whole.txt"), a("diff", "------- SEARCH\n=======\nreplaced whole\n+++++++ REPLACE")}},
		{ID: "write-fenced", Tool: "write_to_file", Args: []arg{a("path", "notes/fenced.md"), a("content", "```\nfenced line\n```")}},
		{ID: "read-past-end", Tool: "read_file", Args: []arg{a("path", "README.md"), a("start_line", 500)}},

		{ID: "list-top", Tool: "list_files", Args: []arg{a("path", ".")}},
		{ID: "list-recursive", Tool: "list_files", Args: []arg{a("path", "."), a("recursive", true)}},
		{ID: "list-src", Tool: "list_files", Args: []arg{a("path", "src"), a("recursive", true)}},
		{ID: "list-empty", Tool: "list_files", Args: []arg{a("path", "empty")}},
		{ID: "list-ignored", Tool: "list_files", Args: []arg{a("path", "private")}},
		{ID: "list-missing", Tool: "list_files", Args: []arg{a("path", "nodir")}},

		{ID: "defs-src", Tool: "list_code_definition_names", Args: []arg{a("path", "src")}},
		{ID: "defs-deep", Tool: "list_code_definition_names", Args: []arg{a("path", "src/nested/deep")}},
		{ID: "defs-empty", Tool: "list_code_definition_names", Args: []arg{a("path", "empty")}},

		{ID: "cmd-ok", Tool: "execute_command", Args: []arg{a("command", "echo hello"), a("requires_approval", false)}},
		{ID: "cmd-fail", Tool: "execute_command", Args: []arg{a("command", "ls no-such-dir"), a("requires_approval", false)}},
		{ID: "cmd-stderr", Tool: "execute_command", Args: []arg{a("command", "echo out; echo err 1>&2"), a("requires_approval", false)}},
		{ID: "cmd-long", Tool: "execute_command", Args: []arg{a("command", "sh scripts/long.sh"), a("requires_approval", false)}},
		{ID: "cmd-exit", Tool: "execute_command", Args: []arg{a("command", "exit 3"), a("requires_approval", false)}},
		{ID: "cmd-silent", Tool: "execute_command", Args: []arg{a("command", "true"), a("requires_approval", false)}},
		{ID: "cmd-cd", Tool: "execute_command", Args: []arg{a("command", "cd src && pwd"), a("requires_approval", false)}},
		{ID: "list-gitignored", Tool: "list_files", Args: []arg{a("path", "build")}},

		{ID: "missing-path", Tool: "read_file", Args: nil},
		{ID: "missing-content", Tool: "write_to_file", Args: []arg{a("path", "x.txt")}},
		{ID: "after-mistakes", Tool: "read_file", Args: []arg{a("path", "edit.txt")}},
		{ID: "missing-diff", Tool: "replace_in_file", Args: []arg{a("path", "edit.txt")}},
		{ID: "missing-command", Tool: "execute_command", Args: []arg{a("requires_approval", false)}},
		{ID: "missing-recovered", Tool: "list_files", Args: []arg{a("path", "src")}},
		{ID: "missing-list-path", Tool: "list_files", Args: nil},
		{ID: "missing-regex", Tool: "search_files", Args: []arg{a("path", ".")}},
		{ID: "missing-reset", Tool: "read_file", Args: []arg{a("path", "src/nested/notes.md")}},
		{ID: "missing-question", Tool: "ask_followup_question", Args: nil},
		{ID: "unknown-tool", Tool: "frobnicate", Args: []arg{a("path", ".")}, Only: "native"},
		{ID: "after-unknown", Tool: "read_file", Args: []arg{a("path", "crlf.txt")}},

		{ID: "ask", Tool: "ask_followup_question", Args: []arg{a("question", "Which color?"), a("options", `["red","blue"]`)}, Answer: "blue"},
		{ID: "plan-respond", Tool: "plan_mode_respond", Args: []arg{a("response", "Here is the plan.")}, Answer: "go on"},
		{ID: "complete", Tool: "attempt_completion", Args: []arg{a("result", "All done.")}, Answer: "one more thing"},
		{ID: "after-complete", Tool: "read_file", Args: []arg{a("path", "notes/new.md")}},

		{ID: "search-todo", Tool: "search_files", Args: []arg{a("path", "."), a("regex", "TODO")}, Headless: true},
		{ID: "search-go", Tool: "search_files", Args: []arg{a("path", "src"), a("regex", `func \w+`), a("file_pattern", "*.go")}, Headless: true},
		{ID: "search-none", Tool: "search_files", Args: []arg{a("path", "."), a("regex", "nomatch-xyz")}, Headless: true},
		{ID: "search-ignored-dir", Tool: "search_files", Args: []arg{a("path", "private"), a("regex", "key")}, Headless: true},
		{ID: "search-ignored-file", Tool: "search_files", Args: []arg{a("path", "."), a("regex", "hunter2")}, Headless: true},
		{ID: "search-gitignored", Tool: "search_files", Args: []arg{a("path", "build"), a("regex", "generated")}, Headless: true},
		{ID: "search-md", Tool: "search_files", Args: []arg{a("path", "."), a("regex", "TODO"), a("file_pattern", "*.md")}, Headless: true},
		{ID: "search-ts", Tool: "search_files", Args: []arg{a("path", "src"), a("regex", `export (class|function)`)}, Headless: true},
		{ID: "search-unicode", Tool: "search_files", Args: []arg{a("path", "."), a("regex", "Grüße")}, Headless: true},
		{ID: "search-line", Tool: "search_files", Args: []arg{a("path", "."), a("regex", "line 77 of")}, Headless: true},
		{ID: "search-file-path", Tool: "search_files", Args: []arg{a("path", "src/main.go"), a("regex", "func")}, Headless: true},
		// Cline's ripgrep gets --glob (the file pattern, or '*'), which
		// overrides the ignore rules: a gitignored file, a hidden file, a
		// file in a hidden directory and .git are searched; a pattern that
		// a gitignored or hidden directory does not match leaves it out.
		{ID: "search-gitignored-all", Tool: "search_files", Args: []arg{a("path", "."), a("regex", "generated output")}, Headless: true},
		{ID: "search-hidden-file", Tool: "search_files", Args: []arg{a("path", "."), a("regex", "^build/$")}, Headless: true},
		{ID: "search-hidden-dir", Tool: "search_files", Args: []arg{a("path", "."), a("regex", `"a": 1`)}, Headless: true},
		{ID: "search-git-dir", Tool: "search_files", Args: []arg{a("path", "."), a("regex", "^ref: refs/heads/")}, Headless: true},
		{ID: "search-pattern-ignored", Tool: "search_files", Args: []arg{a("path", "."), a("regex", "generated|\"a\""), a("file_pattern", "*.{txt,json}")}, Headless: true},
		{ID: "search-pattern-hidden", Tool: "search_files", Args: []arg{a("path", "."), a("regex", "^build/$|^ref: "), a("file_pattern", ".git*")}, Headless: true},
		{ID: "patch-add", Tool: "apply_patch", Args: []arg{a("input", "*** Begin Patch\n*** Add File: patched/new.txt\n+added by a patch\n+second\n*** End Patch")}, Headless: true, Only: "native"},
		{ID: "patch-update", Tool: "apply_patch", Args: []arg{a("input", "*** Begin Patch\n*** Update File: edit.txt\n@@\n alpha\n-beta\n+patched beta\n gamma\n*** End Patch")}, Headless: true, Only: "native"},
		{ID: "patch-delete", Tool: "apply_patch", Args: []arg{a("input", "*** Begin Patch\n*** Delete File: overwrite.txt\n*** End Patch")}, Headless: true, Only: "native"},
	}
}

// mode is how the model calls tools: Cline's XML text or native tool
// calls. Each names the model ids its runs use.
type mode struct {
	Name     string
	Native   bool
	ACPModel string // the ACP run's model
	CLIModel string // the headless run's model
}

// modes: a model id Cline knows no family of gets the generic variant
// (XML tool calls); claude-sonnet-4-5 gets native-next-gen and gpt-5
// gets gpt-5-native, whose tools include apply_patch.
var modes = []mode{
	{Name: "xml", ACPModel: "conformance-xml-model", CLIModel: "conformance-xml-model"},
	{Name: "native", Native: true, ACPModel: "claude-sonnet-4-5", CLIModel: "gpt-5"},
}

// callsOf is the calls of one mode's run (headless or ACP).
func callsOf(m mode, headless bool) []call {
	var out []call
	for _, c := range script() {
		if c.Headless == headless && (c.Only == "" || c.Only == m.Name) {
			out = append(out, c)
		}
	}
	return out
}

// nativeName is a parameter's name in the native spec of the model:
// native-next-gen's write_to_file and replace_in_file name the path
// absolutePath and want it absolute.
func nativeArg(model, tool string, x arg, ws string) arg {
	if model == "claude-sonnet-4-5" && x.Name == "path" && (tool == "write_to_file" || tool == "replace_in_file") {
		return arg{"absolutePath", path.Join(ws, x.Value.(string))}
	}
	return x
}

// args is the call's parameters as the model sends them in a mode, for a
// workspace (the one absolute paths point into), task_progress included.
func (c call) args(m mode, model, ws string) []arg {
	var out []arg
	for _, x := range c.Args {
		if m.Native {
			x = nativeArg(model, c.Tool, x, ws)
		}
		out = append(out, x)
	}
	if c.Tool != "execute_command" {
		out = append(out, arg{"task_progress", progress})
	}
	return out
}

// turn is the call as the mock model plays it.
func (c call) turn(m mode, model, ws string) Turn {
	args := c.args(m, model, ws)
	if m.Native {
		obj := map[string]any{}
		for _, x := range args {
			obj[x.Name] = x.Value
		}
		b, _ := json.Marshal(obj)
		return Turn{Tool: c.Tool, Args: string(b)}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<%s>\n", c.Tool)
	for _, x := range args {
		fmt.Fprintf(&b, "<%s>%v</%s>\n", x.Name, x.Value, x.Name)
	}
	fmt.Fprintf(&b, "</%s>", c.Tool)
	return Turn{Text: b.String()}
}

// input is the call as a client posts it to toolgate: what Cline's parser
// makes of the turn. XML: every value a string, trimmed
// (parse-assistant-message.ts). Native: the model's JSON as it is.
func (c call) input(m mode, model, ws string) map[string]any {
	in := map[string]any{}
	for _, x := range c.args(m, model, ws) {
		if m.Native {
			in[x.Name] = x.Value
		} else {
			in[x.Name] = strings.TrimSpace(fmt.Sprint(x.Value))
		}
	}
	return in
}

// doneTurn ends a run: attempt_completion with the task's result.
func doneTurn(m mode) Turn {
	if m.Native {
		return Turn{Tool: "attempt_completion", Args: `{"result":"Script finished."}`}
	}
	return Turn{Text: "<attempt_completion>\n<result>Script finished.</result>\n</attempt_completion>"}
}
