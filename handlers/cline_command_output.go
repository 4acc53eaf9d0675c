package handlers

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

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
	clineSpillLines     = 1000
	clineSpillBytes     = 512 << 10
	clineKeptLines      = 100
	clineLineLimit      = 500
	clineTruncatedNote  = "... (output truncated) ..."
	clineFullOutputNote = "\nFull output saved to: "
)

// clineFirstRead is the most Cline's first read of a command's output
// takes: Node reads a child's pipe in 64 KB chunks.
const clineFirstRead = 64 << 10

// firstChunk follows a command's writes (process.Options.OnBytes) to find
// where Cline's first chunk would end. Cline reads late: its first chunk
// is all the command wrote by then, up to 64 KB. toolgate takes that to
// be the output up to its first change of stream (stdout to stderr or
// back), so that a command's result does not depend on how fast a reader
// was.
type firstChunk struct {
	mu     sync.Mutex
	stream string
	n      int64
	done   bool
}

func (f *firstChunk) add(stream string, n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case f.done:
	case f.stream != "" && stream != f.stream:
		f.done = true
	default:
		f.stream = stream
		f.n += int64(n)
	}
}

func (f *firstChunk) size() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n
}

// clinePromptArtifact is what Cline's removeLastLineArtifacts strips from
// the end of a last line without a newline (a shell prompt's character).
var clinePromptArtifact = regexp.MustCompile(`[%$#>]\s*$`)

// clineCommandOutput is a finished command's output as Cline's result
// shows it, where names the place the full output is kept (Cline's log
// file; toolgate's output route). spilled says Cline's note of the place
// belongs after the output (clineFullOutputNote).
func clineCommandOutput(e process.Ends, firstChunk int64, where string) (text string, spilled bool) {
	head := clineLines(e.Head, int(min(firstChunk, clineFirstRead)), e.Whole)
	// Cline's line loop: from the line that finds 1,000 lines before it
	// or brings the bytes to 512 KB, lines go to the log file.
	var bytesSoFar int
	spillAt := -1
	for i, l := range head {
		bytesSoFar += len(l)
		if i >= clineSpillLines || bytesSoFar >= clineSpillBytes {
			spillAt = i
			break
		}
	}
	if spillAt < 0 && e.Whole {
		return clineProcessOutput(head), false
	}
	if spillAt < 0 { // the bytes past the head reach the limit
		spillAt = len(head)
	}
	first := head[:min(clineKeptLines, spillAt)]
	all := head
	if !e.Whole {
		all = clineLines(e.Tail, 0, true)
		all = all[min(1, len(all)):] // the tail's first line may be cut
	}
	last := all[max(0, len(all)-clineKeptLines):]
	z := append(append(slices.Clone(first), fmt.Sprintf("\n... (%d lines written to %s) ...\n",
		clineLineCount(e)-len(first)-len(last), where)), last...)
	return clineProcessOutput(z), true
}

// clineLineCount is how many lines Cline's terminal emits for an output:
// its complete lines, the empty line after the first chunk, and a last
// line without a newline unless trimming its prompt artifacts empties it.
func clineLineCount(e process.Ends) int {
	if e.Total == 0 {
		return 0
	}
	end := e.Tail
	if e.Whole {
		end = e.Head
	}
	n := int(e.Lines) + 1
	if i := bytes.LastIndexByte(end, '\n'); i < len(end)-1 {
		if clineLastLine(string(end[i+1:])) == "" {
			n--
		}
	}
	return n
}

// clineLines splits output as Cline's terminal emits it: at each "\n",
// every line trimmed at its end, an empty line after the lines complete
// in the first chunk (its first first bytes), and a last line without a
// newline, when whole is set, trimmed of Cline's prompt artifacts and
// left out when that empties it.
func clineLines(b []byte, first int, whole bool) []string {
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
	if last := clineLastLine(rest); last != "" && whole {
		lines = append(lines, last)
	}
	return lines
}

// clineLastLine is a last line without a newline as Cline emits it
// (removeLastLineArtifacts): trimmed, a prompt character at its end
// removed.
func clineLastLine(s string) string {
	s = strings.TrimRightFunc(s, jsSpace)
	return strings.TrimRightFunc(clinePromptArtifact.ReplaceAllString(s, ""), jsSpace)
}

// clineProcessOutput is Cline's processOutput: past 500 lines the first
// and last 250 around a note, joined and trimmed at both ends.
func clineProcessOutput(lines []string) string {
	if len(lines) > clineLineLimit {
		half := clineLineLimit / 2
		return strings.TrimFunc(strings.Join(lines[:half], "\n")+"\n"+clineTruncatedNote+"\n"+
			strings.Join(lines[len(lines)-half:], "\n"), jsSpace)
	}
	return strings.TrimFunc(strings.Join(lines, "\n"), jsSpace)
}
