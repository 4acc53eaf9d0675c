package cline

import (
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// Result texts of Cline's edit tools, byte for byte, so that a model
// taught by Cline's system prompt reads what it expects. Each names the
// function of Cline's apps/vscode/src/core/prompts/responses.ts (v4.0.12) it
// follows; what toolgate adds (the unified diff, the closest region of a
// missed SEARCH) comes after them, in a block of its own.

// fileSaved is formatResponse.fileEditWithoutUserChanges, as Cline's
// WriteToFileToolHandler returns it after write_to_file, replace_in_file
// and new_rule: no user edits, no auto-formatting, no new problems.
func fileSaved(rel, final string) string {
	return fmt.Sprintf("The content was successfully saved to %s.\n\n"+
		"Here is the full, updated content of the file that was saved:\n\n"+
		"<final_file_content path=\"%s\">\n%s\n</final_file_content>\n\n"+
		"IMPORTANT: For any future changes to this file, use the final_file_content shown above as your reference. "+
		"This content reflects the current state of the file, including any auto-formatting (e.g., if you used single quotes "+
		"but the formatter converted them to double quotes). Always base your SEARCH/REPLACE operations on this final version "+
		"to ensure accuracy.\n\n", rel, rel, final)
}

// finalContent is the file as Cline shows it in final_file_content
// (DiffViewProvider.saveChanges): line ends as the model wrote them,
// trailing white space trimmed, then one line end; no byte order mark. A
// notebook's outputs are left out, as its sanitizeNotebookForLLM(…, true)
// leaves them out.
func finalContent(rel string, written []byte, modelContent string) string {
	s := strings.TrimPrefix(string(written), "\uFEFF")
	eol := "\n"
	if strings.Contains(modelContent, "\r\n") {
		eol = "\r\n"
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.TrimRightFunc(s, unicode.IsSpace)
	if eol != "\n" {
		s = strings.ReplaceAll(s, "\n", eol)
	}
	if strings.EqualFold(path.Ext(rel), ".ipynb") {
		return notebookText([]byte(s + eol))
	}
	return s + eol
}

// diffError is formatResponse.diffError: what Cline adds to a
// replace_in_file failure, the file as it still is.
func diffError(rel, original string) string {
	return "This is likely because the SEARCH block content doesn't match exactly with what's in the file, or if you used multiple " +
		"SEARCH/REPLACE blocks they may not have been in the order they appear in the file. (Please also ensure that when using " +
		"the replace_in_file tool, Do NOT add extra characters to the markers (e.g., ------- SEARCH> is INVALID). Do NOT forget to " +
		"use the closing +++++++ REPLACE marker. Do NOT modify the marker format in any way. Malformed XML will cause complete " +
		"tool failure and break the entire editing process.)\n\n" +
		"The file was reverted to its original state:\n\n" +
		"<file_content path=\"" + rel + "\">\n" + original + "\n</file_content>\n\n" +
		"Now that you have the latest state of the file, try the operation again with fewer, more precise SEARCH blocks. For large " +
		"files especially, it may be prudent to try to limit yourself to <5 SEARCH/REPLACE blocks at a time, then wait for the user " +
		"to respond with the result of the operation before following up with another replace_in_file call to make additional edits.\n" +
		"(If you run into this error 3 times in a row, you may use the write_to_file tool as a fallback.)"
}

// searchMissed is the message of Cline's diff.ts (constructNewFileContent)
// for a SEARCH block found nowhere in the file.
func searchMissed(search string) string {
	return "The SEARCH block:\n" + strings.TrimRightFunc(search, unicode.IsSpace) + "\n...does not match anything in the file."
}

// emptySearchOnFile is in toolgate's refusal of an empty SEARCH block on
// a file that is not empty (handlers/editdiff.EmptySearchOnFile: a
// dialect imports no handler's engine; TestEditFailedEmptySearch drives
// this with the engine's own error, so the two cannot part).
const emptySearchOnFile = "its SEARCH section is empty but the file is not empty"

// emptySearch is Cline's answer to an empty SEARCH block in a file that
// is not empty (core/assistant-message/diff.ts, constructNewFileContent,
// measured with cline 2.18.0), the blank line after it included.
const emptySearch = "Empty SEARCH block detected with non-empty file. This usually indicates a malformed SEARCH marker.\n" +
	"Please ensure your SEARCH marker follows the correct format:\n" +
	"- Use '------- SEARCH' (7+ dashes + space + SEARCH)\n"

// noFiles is formatFilesList's answer for an empty listing.
const noFiles = "No files found."

// lockSymbol is Cline's LOCK_TEXT_SYMBOL (core/ignore/ClineIgnoreController.ts),
// put before the entries .clineignore excludes.
const lockSymbol = "\U0001F512"

// filesList is formatResponse.formatFilesList over entries already in
// Cline's order.
func filesList(entries []string, locked func(string) bool, hitLimit bool) string {
	lines := make([]string, len(entries))
	for i, e := range entries {
		if locked(e) {
			e = lockSymbol + " " + e
		}
		lines[i] = e
	}
	if hitLimit {
		return strings.Join(lines, "\n") + "\n\n(File list truncated. Use list_files on specific subdirectories if you need to explore further.)"
	}
	if len(lines) == 0 || len(lines) == 1 && lines[0] == "" {
		return noFiles
	}
	return strings.Join(lines, "\n")
}

// repeatedRead is the note Cline's ReadFileToolHandler (v4.0.12,
// execute) puts before the content of a file read again unchanged in the
// same task: "[File already read]" the second time, "[DUPLICATE READ]"
// from the third on, naming the path as the model wrote it. It is empty
// for a first read.
func repeatedRead(path string, count int) string {
	switch {
	case count >= 3:
		// Written into one buffer of the right size: one allocation where
		// strconv.Itoa (a count over 99) and the concatenation made two.
		// Speed only: BenchmarkReadPipeline (./handlers/).
		const head, tail = "[DUPLICATE READ] You have already read '", " times in this conversation. " +
			"The content has not changed since your last read. Please use the information you already have and proceed with your task."
		var num [20]byte
		n := strconv.AppendInt(num[:0], int64(count), 10)
		var b strings.Builder
		b.Grow(len(head) + len(path) + 2 + len(n) + len(tail))
		b.WriteString(head)
		b.WriteString(path)
		b.WriteString("' ")
		b.Write(n)
		b.WriteString(tail)
		return b.String()
	case count == 2:
		return "[File already read] The file '" + path + "' was already read earlier in this conversation. Returning content:"
	}
	return ""
}

// finalContentBlock matches the <final_file_content> element of an edit's
// answer, as Cline's ContextManager matches it.
var finalContentBlock = regexp.MustCompile(`(<final_file_content path="[^"]*">)[\s\S]*?(</final_file_content>)`)

// droppedContent is an edit's answer without the file's body, as
// Cline's ContextManager (core/context/context-management/ContextManager.ts,
// v4.0.12, handlePotentialFileChangeToolCalls) leaves an old edit's answer
// when it makes room in the context: the element keeps its tags and holds
// formatResponse.duplicateFileReadNotice.
func droppedContent(saved string) string {
	m := finalContentBlock.FindStringSubmatchIndex(saved)
	if m == nil {
		return saved
	}
	return saved[:m[0]] + saved[m[2]:m[3]] + " " + duplicateFileReadNotice + " " + saved[m[4]:m[5]] + saved[m[1]:]
}

// duplicateFileReadNotice is formatResponse.duplicateFileReadNotice.
const duplicateFileReadNotice = "[[NOTE] This file read has been removed to save space in the context window. " +
	"Refer to the latest file read for the most up to date version of this file.]"
