package tool

import (
	"encoding/json"
	"time"

	"github.com/toolgate/toolgate/api"

	"github.com/toolgate/toolgate/internal/process"
)

// Texts words the results of the registry's tools for a dialect's model:
// what a successful edit, a missed SEARCH block, a listing, a repeated
// read or a finished command says, and how a failure is wrapped. A
// dialect supplies them (Dialect.Texts) and the pipeline hands a call the
// texts of its session's dialect (Call.Texts), so a handler decides what
// happened and the dialect decides how that reads. Handlers never learn
// which dialect's texts they hold.
type Texts interface {
	// ToolError wraps the message of a failed call.
	ToolError(msg string) string
	// FileSaved answers a successful write or edit of rel (named as the
	// model named it): written is the file's new content, modelContent
	// what the model sent (its line ends). omitBody leaves the file's
	// content out of the answer.
	FileSaved(rel string, written []byte, modelContent string, omitBody bool) string
	// PatchApplied answers an applied patch, its files in the patch's
	// order.
	PatchApplied(files []PatchedFile, omitBody bool) string
	// EditFailed answers an edit whose SEARCH block matched nothing
	// (search, when known) or that failed with msg, showing the file rel
	// as it still is (original).
	EditFailed(msg, search, rel, original string) string
	// FileList answers a directory listing: it orders entries (a
	// directory ends with "/") as the client does, marks those locked
	// says, and notes a listing cut at its limit (hitLimit). No entries
	// is an empty or missing directory.
	FileList(entries []string, locked func(string) bool, hitLimit bool) string
	// ReadKey is the key a file's reads are counted under in the file
	// memory, from its workspace-relative path.
	ReadKey(rel string) string
	// RepeatedRead is the note before the content of a file read again
	// unchanged, count being how often it has been read; "" for a first
	// read.
	RepeatedRead(path string, count int) string
	// Notebook is a Jupyter notebook's JSON as read_file shows it.
	Notebook(data []byte) string
	// CommandOutput shapes a command's output (its head and tail,
	// firstChunk the size of its first write) for the model; spilled
	// reports that part was left out, to be read at where.
	CommandOutput(e process.Ends, firstChunk int64, where string) (text string, spilled bool)
	// CommandResult answers a command that ran to its end: its exit
	// status and output; spilledTo, when not "", is where the whole
	// output can be read.
	CommandResult(res process.Result, output, spilledTo string) string
	// CommandTimedOut answers a command stopped at its timeout.
	CommandTimedOut(timeout time.Duration, output string) string
	// DefinitionsPathError words a path list_code_definition_names
	// cannot list, by the error's code (not_directory, not_found,
	// permission); "" keeps toolgate's words.
	DefinitionsPathError(code string) string
	// MCPResult answers an MCP tool's result.
	MCPResult(r MCPAnswer) []api.Content
	// MCPResource answers an MCP resource's contents.
	MCPResource(r MCPAnswer) []api.Content
	// MCPBadArguments answers an MCP call whose arguments are no JSON
	// object. ToolError wraps it.
	MCPBadArguments(server, tool string) string
	// MCPFailed answers an MCP call the server failed at the protocol
	// level, msg saying why.
	MCPFailed(msg string) string

	// The pipeline's own answers to calls in the registry's vocabulary.

	// MissingParam answers a call of a tool that lacks the required
	// parameter param (the first its handler checks); path is the call's
	// path parameter ("" when none), mistakes the session's count of
	// consecutive mistakes, this one included. ToolError wraps it.
	MissingParam(tool, param, path string, mistakes int) string
	// IgnoredPath answers a call refused because the default dialect's
	// ignore file (.clineignore) excludes path, named as the model named
	// it. ToolError wraps it.
	IgnoredPath(path string) string
	// CallDescription names a call after the reason it was skipped; ""
	// adds nothing.
	CallDescription(tool string, raw json.RawMessage) string
	// PolicyRefusal words a call the policy refused with code, content
	// being toolgate's explanation.
	PolicyRefusal(tool, code string, content []api.Content) []api.Content
	// Rejected answers a call the user rejected: fileExists says whether
	// the call's first path exists, feedback is the user's comment. nil
	// keeps toolgate's answer.
	Rejected(tool string, fileExists bool, feedback string) []api.Content
	// ApprovalFeedback is the user's comment on a call they approved,
	// added after its result.
	ApprovalFeedback(feedback string) string
}

// MCPAnswer is what an MCP server answered, for Texts.MCPResult and
// Texts.MCPResource: its texts in order (text blocks; embedded resources
// as indented JSON without their blob; a resource's text contents), the
// rest as blocks (images, blobs), and for a tool's result whether the
// server flagged an error and its structured content's JSON when it sent
// no content blocks.
type MCPAnswer struct {
	Texts      []string
	Media      []api.Content
	IsError    bool
	Structured string
}

// PatchedFile is one file of an applied patch, for Texts.PatchApplied.
type PatchedFile struct {
	Rel     string
	Content []byte // the file's content after the patch
	Deleted bool
}
