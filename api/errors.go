package api

// Error is the only error shape a client sees: {"error": {...}}. Code is
// stable and machine-readable; Message is for people; Fields names the
// request fields that were wrong.
type Error struct {
	Code    string            `json:"code"`
	Message string            `json:"message"`
	Fields  map[string]string `json:"fields,omitempty"`
}

// Error makes *Error an error.
func (e *Error) Error() string { return e.Code + ": " + e.Message }

// ErrorResponse is the body of every non-2xx answer.
type ErrorResponse struct {
	Error *Error `json:"error"`
}

// Request-level error codes. server maps each to one HTTP status.
const (
	CodeBadRequest       = "bad_request"
	CodeInvalidJSON      = "invalid_json"
	CodeValidation       = "validation_failed"
	CodeUnsupportedMedia = "unsupported_media_type"
	CodeBodyTooLarge     = "body_too_large"
	CodeUnauthorized     = "unauthorized"
	CodeForbiddenHost    = "forbidden_host"
	CodeForbiddenOrigin  = "forbidden_origin"
	// CodeForbiddenScope: the token is valid but lacks the route's scope
	// (an agent's call token deciding its own approval).
	CodeForbiddenScope   = "forbidden_scope"
	CodeNotFound         = "not_found"
	CodeMethodNotAllowed = "method_not_allowed"
	CodeConflict         = "conflict"
	CodeTooManySessions  = "too_many_sessions"
	CodeTooManyMessages  = "too_many_messages"
	CodeNotAcceptable    = "not_acceptable"
	CodeInternal         = "internal"
	CodeUnavailable      = "unavailable"
	// CodeRequestTimeout: the request body did not arrive within read_timeout.
	CodeRequestTimeout = "request_timeout"
	// CodeFileChanged refuses a revert of a file changed since the call.
	CodeFileChanged = "file_changed"
)

// Tool error codes, carried in CallRecord.Error for calls that did not
// succeed. This list is the only place they are spelled: handlers and the
// coordinator use these names, and openapi.yaml enumerates AllToolCodes.
const (
	ToolCodeUnknownTool = "unknown_tool"
	ToolCodeInvalid     = "invalid_input"
	ToolCodeDenied      = "denied"
	ToolCodePlanMode    = "plan_mode"
	ToolCodeNotOwned    = "not_owned"
	ToolCodeFailed      = "tool_failed"
	ToolCodePanic       = "panic"
	ToolCodeCancelled   = "cancelled"
	ToolCodeSkipped     = "skipped"
	ToolCodeOutside     = "outside_workspace"
	ToolCodeNotFound    = "not_found"
	// ToolCodeFileChanged: the file changed on disk since the session last
	// read or wrote it; ToolCodeReadRequired: the config requires a read
	// before an edit.
	ToolCodeFileChanged  = "file_changed"
	ToolCodeReadRequired = "read_required"
	ToolCodeIgnored      = "ignored"          // a .clineignore rule covers a path the call touches
	ToolCodeRejected     = "rejected"         // the user rejected the call
	ToolCodeNoDecision   = "approval_timeout" // no decision came in time
	// ToolCodeInterrupted: toolgate stopped while the call ran; it is not
	// run again. ToolCodeNotRecorded: the store could not record the call
	// before it would run, so it did not run.
	ToolCodeInterrupted = "interrupted"
	ToolCodeNotRecorded = "not_recorded"
	// ToolCodeResultDropped: a repeat of a tool_use id whose call ran and
	// whose result the session no longer keeps; it is not run again.
	ToolCodeResultDropped = "result_dropped"

	ToolCodeInvalidPath        = "invalid_path"         // a NUL byte, or a path too long
	ToolCodePermission         = "permission"           // the file system refused access
	ToolCodeIOError            = "io_error"             // any other file system failure
	ToolCodeIsDirectory        = "is_directory"         // a file was expected
	ToolCodeNotDirectory       = "not_directory"        // a directory was expected
	ToolCodeNotRegular         = "not_regular"          // a device, socket or pipe
	ToolCodeBinaryFile         = "binary_file"          // text was expected
	ToolCodeTooLarge           = "too_large"            // over the tool's size limit
	ToolCodeOutOfRange         = "out_of_range"         // a line range past the end of the file
	ToolCodeOutsideRules       = "outside_rules"        // new_rule outside .clinerules/
	ToolCodeDiffFailed         = "diff_failed"          // a SEARCH/REPLACE diff that does not apply
	ToolCodeInvalidRegex       = "invalid_regex"        // search_files' regex does not compile
	ToolCodeInvalidFilePattern = "invalid_file_pattern" // search_files' file_pattern is not a glob
	ToolCodeUnavailable        = "unavailable"          // a program the tool needs is missing
	ToolCodeMCPUnavailable     = "mcp_unavailable"      // the MCP server is not configured, disabled or not connected
	ToolCodeMCPFailed          = "mcp_failed"           // the MCP server failed the request
	ToolCodeInvalidPatch       = "invalid_patch"        // apply_patch's input does not follow the patch format
	ToolCodeHunkFailed         = "hunk_failed"          // a patch hunk's lines are not in the file
	ToolCodeFileExists         = "file_exists"          // a patch or an edit creates, adds or moves onto a file that exists
	ToolCodeNoSandbox          = "sandbox_unavailable"  // no sandbox can confine a command here (and it is not turned off)
	ToolCodeSandboxLimit       = "sandbox_limit"        // a command reached the sandbox's process or memory limit
	ToolCodeInvalidURL         = "invalid_url"          // web_fetch or browser_action got something that is not a URL
	ToolCodeURLRefused         = "url_refused"          // a URL, redirect or resolved address the address rules refuse
	ToolCodeFetchFailed        = "fetch_failed"         // the network or the site failed the fetch
	ToolCodeTimeout            = "timeout"              // the tool's time cap passed
	ToolCodeBrowserFailed      = "browser_failed"       // the browser could not start or do the action
	ToolCodeExitStatus         = "exit_status"          // a command exited non-zero
	ToolCodeTimedOut           = "timed_out"            // a command outlived its timeout
	ToolCodeNotStarted         = "not_started"          // a command could not start
	ToolCodeInvalidType        = "invalid_type"         // an unknown file type name
	ToolCodeInvalidNotebook    = "invalid_notebook"     // a file that is not a Jupyter notebook
	ToolCodeCellNotFound       = "cell_not_found"       // no notebook cell with that id
	ToolCodeInvalidDocument    = "invalid_document"     // a PDF or .docx whose text cannot be extracted
	ToolCodeNoMatch            = "no_match"             // an edit's old text is not in the file
	ToolCodeMultipleMatches    = "multiple_matches"     // an edit's old text occurs more than once
	ToolCodeNoChange           = "no_change"            // an edit's old and new text are the same
	ToolCodeInvalidInsertLine  = "invalid_insert_line"  // an insert after a line past the end of the file
)

// AllToolCodes lists every tool error code, for the contract's enum.
var AllToolCodes = []string{
	ToolCodeUnknownTool, ToolCodeInvalid, ToolCodeDenied, ToolCodePlanMode, ToolCodeNotOwned,
	ToolCodeFailed, ToolCodePanic, ToolCodeCancelled, ToolCodeSkipped, ToolCodeOutside,
	ToolCodeNotFound, ToolCodeFileChanged, ToolCodeReadRequired, ToolCodeIgnored, ToolCodeRejected,
	ToolCodeNoDecision, ToolCodeInvalidPath, ToolCodePermission, ToolCodeIOError, ToolCodeIsDirectory,
	ToolCodeNotDirectory, ToolCodeNotRegular, ToolCodeBinaryFile, ToolCodeTooLarge, ToolCodeOutOfRange,
	ToolCodeOutsideRules, ToolCodeDiffFailed, ToolCodeInvalidRegex, ToolCodeInvalidFilePattern,
	ToolCodeUnavailable, ToolCodeMCPUnavailable, ToolCodeMCPFailed,
	ToolCodeExitStatus, ToolCodeTimedOut, ToolCodeNotStarted, ToolCodeInvalidType, ToolCodeInvalidNotebook, ToolCodeCellNotFound, ToolCodeInvalidDocument,
	ToolCodeInvalidPatch, ToolCodeHunkFailed, ToolCodeFileExists, ToolCodeInterrupted, ToolCodeNotRecorded, ToolCodeResultDropped,
	ToolCodeInvalidURL, ToolCodeURLRefused, ToolCodeFetchFailed, ToolCodeTimeout, ToolCodeBrowserFailed, ToolCodeNoSandbox, ToolCodeSandboxLimit,
	ToolCodeHookBlocked, ToolCodeHookFailed,
	ToolCodeNoMatch, ToolCodeMultipleMatches, ToolCodeNoChange, ToolCodeInvalidInsertLine,
}
