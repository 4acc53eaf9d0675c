package cline

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/toolgate/toolgate/internal/process"
)

// Cline's shaping of a command's output (cline@2.18.0, the CLI's
// standalone terminal: StandaloneTerminalProcess and
// CommandOrchestrator.orchestrateCommandExecution). Cline reads the
// output as lines, each trimmed at its end, with one empty line after the
// lines of the first chunk it read (firstChunk); past 1,000 lines or 512 KB it writes
// the rest to a log file and keeps the first and last 100 lines around a
// note; past 500 lines it keeps the first and last 250
// (processOutput); the result is trimmed at both ends.
const (
	spillLines     = 1000
	spillBytes     = 512 << 10
	keptLines      = 100
	lineLimit      = 500
	truncatedNote  = "... (output truncated) ..."
	fullOutputNote = "\nFull output saved to: "
)

// firstRead is the most Cline's first read of a command's output
// takes: Node reads a child's pipe in 64 KB chunks.
const firstRead = 64 << 10

// promptArtifact is what Cline's removeLastLineArtifacts strips from
// the end of a last line without a newline (a shell prompt's character).
var promptArtifact = regexp.MustCompile(`[%$#>]\s*$`)

// commandOutput is a finished command's output as Cline's result
// shows it, where names the place the full output is kept (Cline's log
// file; toolgate's output route). spilled says Cline's note of the place
// belongs after the output (fullOutputNote).
func commandOutput(e process.Ends, firstChunk int64, where string) (text string, spilled bool) {
	head := outputLines(e.Head, int(min(firstChunk, firstRead)), e.Whole)
	// Cline's line loop: from the line that finds 1,000 lines before it
	// or brings the bytes to 512 KB, lines go to the log file.
	var bytesSoFar int
	spillAt := -1
	for i, l := range head {
		bytesSoFar += len(l)
		if i >= spillLines || bytesSoFar >= spillBytes {
			spillAt = i
			break
		}
	}
	if spillAt < 0 && e.Whole {
		return processOutput(head), false
	}
	if spillAt < 0 { // the bytes past the head reach the limit
		spillAt = len(head)
	}
	first := head[:min(keptLines, spillAt)]
	all := head
	if !e.Whole {
		all = outputLines(e.Tail, 0, true)
		all = all[min(1, len(all)):] // the tail's first line may be cut
	}
	last := all[max(0, len(all)-keptLines):]
	z := append(append(slices.Clone(first), fmt.Sprintf("\n... (%d lines written to %s) ...\n",
		lineCount(e)-len(first)-len(last), where)), last...)
	return processOutput(z), true
}

// lineCount is how many lines Cline's terminal emits for an output:
// its complete lines, the empty line after the first chunk, and a last
// line without a newline unless trimming its prompt artifacts empties it.
func lineCount(e process.Ends) int {
	if e.Total == 0 {
		return 0
	}
	end := e.Tail
	if e.Whole {
		end = e.Head
	}
	n := int(e.Lines) + 1
	if i := bytes.LastIndexByte(end, '\n'); i < len(end)-1 {
		if lastLine(string(end[i+1:])) == "" {
			n--
		}
	}
	return n
}

// outputLines splits output as Cline's terminal emits it: at each "\n",
// every line trimmed at its end, an empty line after the lines complete
// in the first chunk (its first first bytes), and a last line without a
// newline, when whole is set, trimmed of Cline's prompt artifacts and
// left out when that empties it.
func outputLines(b []byte, first int, whole bool) []string {
	var lines []string
	blankAt := -1
	if first > 0 {
		blankAt = bytes.Count(b[:min(first, len(b))], []byte{'\n'})
	}
	rest := string(b)
	for {
		if len(lines) == blankAt {
			lines = append(lines, "")
			blankAt = -1
		}
		i := strings.IndexByte(rest, '\n')
		if i < 0 {
			break
		}
		lines = append(lines, strings.TrimRightFunc(rest[:i], jsSpace))
		rest = rest[i+1:]
	}
	if last := lastLine(rest); last != "" && whole {
		lines = append(lines, last)
	}
	return lines
}

// lastLine is a last line without a newline as Cline emits it
// (removeLastLineArtifacts): trimmed, a prompt character at its end
// removed.
func lastLine(s string) string {
	s = strings.TrimRightFunc(s, jsSpace)
	return strings.TrimRightFunc(promptArtifact.ReplaceAllString(s, ""), jsSpace)
}

// processOutput is Cline's processOutput: past 500 lines the first
// and last 250 around a note, joined and trimmed at both ends.
func processOutput(lines []string) string {
	if len(lines) > lineLimit {
		half := lineLimit / 2
		return strings.TrimFunc(strings.Join(lines[:half], "\n")+"\n"+truncatedNote+"\n"+
			strings.Join(lines[len(lines)-half:], "\n"), jsSpace)
	}
	return strings.TrimFunc(strings.Join(lines, "\n"), jsSpace)
}
