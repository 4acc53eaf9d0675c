package handlers

import (
	"bytes"
	"strconv"
	"unsafe"
)

// wholeWindow is a read_file window that shows a whole file held in
// memory: a start at line 1, an end at or past its last line, and lines
// within the window's bytes. Its text is appendLines' made in one
// allocation of the answer's size, the line numbers counted up in place
// rather than formatted. Speed only: BenchmarkReadWhole (./handlers/;
// docs/benchmarks.md).
type wholeWindow struct {
	lines int // the file's lines
	size  int // the bytes of the numbered lines and their total
}

// wholeWindowOf is the window in shows of the file whose content is data,
// when it shows the whole file; ok is false when it does not (appendLines
// then makes its text).
func wholeWindowOf(data []byte, in *ReadFileInput) (w wholeWindow, ok bool) {
	start, end := lineRange(in.StartLine, in.EndLine)
	if start != 1 || len(data) > readWindowBytes {
		return w, false
	}
	newlines := bytes.Count(data, []byte{'\n'})
	w.lines = newlines
	if len(data) > 0 && data[len(data)-1] != '\n' {
		w.lines++
	}
	if w.lines > end {
		return w, false
	}
	if w.lines == 0 {
		return w, true
	}
	// Each line's text (a CR that ends one is counted, then dropped: the
	// size is then over by a byte), its number and " | ", the newlines
	// between lines.
	body := len(data) - newlines + labelDigits(w.lines) + w.lines*len(" | ") + w.lines - 1
	if body > readWindowBytes {
		// appendLines may cut such a window short: its rule decides.
		return w, false
	}
	w.size = body + len("\n\n(File has ") + digits(w.lines) + len(" lines total.)")
	return w, true
}

// text is read_file's answer for w: note, a newline and the numbered
// lines of data, or the lines alone when note is empty.
func (w wholeWindow) text(note string, data []byte) string {
	size := w.size
	if note != "" {
		size += len(note) + 1
	}
	if size == 0 {
		return ""
	}
	b := make([]byte, 0, size)
	if note != "" {
		b = append(b, note...)
		b = append(b, '\n')
	}
	if w.lines > 0 {
		// Each line is copied with the newline after it, which is the
		// one between lines, or the first of the total's two.
		var label lineLabel
		label.reset()
		for len(data) > 0 {
			var line []byte
			if i := bytes.IndexByte(data, '\n'); i >= 0 {
				line, data = data[:i+1], data[i+1:]
			} else {
				line, data = data, nil
			}
			b = append(b, label.next()...)
			n := len(line)
			if line[n-1] == '\n' && (n == 1 || line[n-2] != '\r') {
				b = append(b, line...)
				continue
			}
			// A last line without its newline, or one ending in CR LF
			// (read as LF, as in appendLines).
			if line[n-1] == '\n' {
				n--
			}
			if n > 0 && line[n-1] == '\r' {
				n--
			}
			b = append(b, line[:n]...)
			b = append(b, '\n')
		}
		b = append(b, "\n(File has "...)
		b = strconv.AppendInt(b, int64(w.lines), 10)
		b = append(b, " lines total.)"...)
	}
	// b is never written again: the string shares its bytes, as
	// strings.Builder's String does.
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// lineLabel counts line numbers up in decimal, in place, each followed
// by " | " as appendLines labels a line.
type lineLabel struct {
	d     [20 + len(" | ")]byte
	first int // d[first:] is the number and " | "
}

// lastDigit is where the number ends in lineLabel.d.
const lastDigit = 19

// reset sets the count to 0.
func (l *lineLabel) reset() {
	copy(l.d[lastDigit+1:], " | ")
	l.first = lastDigit
	l.d[l.first] = '0'
}

// next counts one up and returns the label, valid until the next call.
func (l *lineLabel) next() []byte {
	for i := lastDigit; ; i-- {
		if l.d[i] < '9' {
			l.d[i]++
			break
		}
		l.d[i] = '0'
		if i == l.first {
			l.first--
			l.d[l.first] = '1'
			break
		}
	}
	return l.d[l.first:]
}

// digits is how many decimal digits n > 0 takes.
func digits(n int) int {
	d := 1
	for ; n >= 10; n /= 10 {
		d++
	}
	return d
}

// labelDigits is how many digits the numbers 1 to n take together.
func labelDigits(n int) int {
	total := 0
	for lo, d := 1, 1; lo <= n; lo, d = lo*10, d+1 {
		hi := min(n, lo*10-1)
		total += (hi - lo + 1) * d
	}
	return total
}
