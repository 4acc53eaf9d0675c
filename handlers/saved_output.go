package handlers

import (
	"fmt"
	"io"
	"regexp"
	"strconv"
	"unicode/utf8"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/outfiles"
	"github.com/toolgate/toolgate/internal/process"
	"github.com/toolgate/toolgate/internal/randid"
)

// execute_command's notes on the session's output files (its save_over
// and output_file), in the last text block of its answer, for a dialect
// to reword (ParseSavedOutput, ParseJobOutputFile).
const (
	savedOutputNote = "The whole output (%d bytes) is saved to %s"
	jobOutputNote   = "Its output file (written when read): %s"
)

var (
	savedOutput   = regexp.MustCompile(`^The whole output \((\d+) bytes\) is saved to (.+)$`)
	jobOutputFile = regexp.MustCompile(`^Its output file \(written when read\): (.+)$`)
)

// ParseSavedOutput reads execute_command's note that the whole output
// went to a file: the output's size in bytes and the file's path.
func ParseSavedOutput(note string) (size int64, path string, ok bool) {
	m := savedOutput.FindStringSubmatch(note)
	if m == nil {
		return 0, "", false
	}
	size, err := strconv.ParseInt(m[1], 10, 64)
	return size, m[2], err == nil
}

// ParseJobOutputFile reads execute_command's note naming a background
// job's output file.
func ParseJobOutputFile(note string) (string, bool) {
	m := jobOutputFile.FindStringSubmatch(note)
	if m == nil {
		return "", false
	}
	return m[1], true
}

// saveOutput saves the whole output of a command that succeeded and
// wrote more than limit bytes to a new file of the session's output
// files (ResultsDir/<id>.txt), and answers with its first limit bytes
// and a note naming the file, as Claude Code's Bash answers an output
// over its limit. It reports false, the answer left as it was, when it
// is not asked, the output is short, or the file cannot be saved (the
// files' cap reached).
func saveOutput(call *tool.Call, area tool.OutputFiles, limit int, status string, out *process.Output) (tool.Result, bool) {
	if area == nil || limit <= 0 || status != "succeeded" || out.Total() <= int64(limit) {
		return tool.Result{}, false
	}
	whole, err := out.Open()
	if err != nil {
		return tool.Result{}, false
	}
	// Claude Code's own ids: a letter and eight of [0-9a-z].
	id := "b" + randid.Hex(4)
	path, _, err := area.Save(call.SessionID, call.SessionDone, outfiles.ResultsDir+"/"+id+".txt", whole)
	_ = whole.Close()
	if err != nil {
		if call.Logger != nil {
			call.Logger.Warn("output file not saved", "err", err)
		}
		return tool.Result{}, false
	}
	again, err := out.Open()
	if err != nil {
		return tool.Result{}, false
	}
	defer again.Close()
	head := make([]byte, limit)
	n, _ := io.ReadFull(again, head)
	head = head[:n]
	for i := 0; i < utf8.UTFMax-1 && len(head) > 0; i++ {
		if r, size := utf8.DecodeLastRune(head); r != utf8.RuneError || size != 1 {
			break
		}
		head = head[:len(head)-1] // a character cut at the limit
	}
	return tool.Result{Content: []api.Content{
		api.TextContent(string(head)),
		api.TextContent(fmt.Sprintf(savedOutputNote, out.Total(), path)),
	}}, true
}

// withJobOutputNote adds to a background start's answer the path of the
// file that holds the job's output (TasksDir/<id>.output), which the
// session's read_output writes when it reads it.
func withJobOutputNote(call *tool.Call, area tool.OutputFiles, id string, res tool.Result) tool.Result {
	if area == nil {
		return res
	}
	path := area.Path(call.SessionID, outfiles.TasksDir+"/"+id+".output")
	res.Content = append(res.Content, api.TextContent(fmt.Sprintf(jobOutputNote, path)))
	return res
}
