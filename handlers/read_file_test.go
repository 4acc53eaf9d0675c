package handlers

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
)

func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestReadFile(t *testing.T) {
	f := newFixture(t)
	f.write(t, "small.txt", "a\nb\nc")
	f.write(t, "long.txt", numbered(2500))
	f.write(t, "wide.txt", strings.Repeat(strings.Repeat("w", 999)+"\n", 600)) // 600 KB in 600 lines
	f.write(t, "empty.txt", "")
	f.write(t, "bin.dat", "ab\x00cd")
	f.write(t, "latin1.txt", "caf\xe9\n")
	f.write(t, "utf8.txt", "héllo → wörld\n")
	f.write(t, "crlf.txt", "one\r\ntwo\r\n")
	longLine := strings.Repeat("L", 150<<10) // longer than the 64 KiB line reader
	f.write(t, "longline.txt", longLine+"\r\nend")
	cases := []struct {
		name    string
		input   map[string]any
		wantErr bool
		want    string // the whole text, or a substring with contains
		contain bool
	}{
		// Texts of Cline's ReadFileToolHandler.ts, formatFileContentWithLineNumbers.
		{"whole small file", map[string]any{"path": "small.txt"}, false, "1 | a\n2 | b\n3 | c\n\n(File has 3 lines total.)", false},
		{"unicode", map[string]any{"path": "utf8.txt"}, false, "1 | héllo → wörld\n\n(File has 1 lines total.)", false},
		{"CRLF lines come back with LF", map[string]any{"path": "crlf.txt"}, false, "1 | one\n2 | two\n\n(File has 2 lines total.)", false},
		{"a line longer than the read buffer", map[string]any{"path": "longline.txt"}, false, "1 | " + longLine + "\n2 | end\n\n(File has 2 lines total.)", false},
		{"empty", map[string]any{"path": "empty.txt"}, false, "(tool did not return anything)", false},
		{"range", map[string]any{"path": "long.txt", "start_line": 10, "end_line": 12}, false,
			"10 | line 10\n11 | line 11\n12 | line 12\n\n(Showing lines 10-12 of 2500 total. Use start_line=13 to continue reading.)", false},
		{"first window", map[string]any{"path": "long.txt"}, false, "1000 | line 1000\n\n(Showing lines 1-1000 of 2500 total. Use start_line=1001 to continue reading.)", true},
		{"window end", map[string]any{"path": "long.txt", "start_line": 2001}, false, "2500 | line 2500\n\n(File has 2500 lines total.)", true},
		{"byte window", map[string]any{"path": "wide.txt"}, false, "(Showing lines 1-407 of 600 total. Use start_line=408 to continue reading.)", true},
		{"past the end shows nothing, as Cline", map[string]any{"path": "small.txt", "start_line": 50}, false, "\n\n(File has 3 lines total.)", false},
		{"end before start is swapped", map[string]any{"path": "small.txt", "start_line": 3, "end_line": 2}, false, "2 | b\n3 | c\n\n(File has 3 lines total.)", false},
		{"start below 1 is 1", map[string]any{"path": "small.txt", "start_line": -4, "end_line": 1}, false, "1 | a\n\n(Showing lines 1-1 of 3 total. Use start_line=2 to continue reading.)", false},
		{"binary", map[string]any{"path": "bin.dat"}, true, "binary file", true},
		{"not utf-8", map[string]any{"path": "latin1.txt"}, true, "binary file", true},
		{"missing: the absolute path, as Cline", map[string]any{"path": "nope.txt"}, true, "/nope.txt\n</error>", true},
		{"directory: node's EISDIR, as Cline", map[string]any{"path": "."}, true, "Error reading file: EISDIR: illegal operation on a directory, read", true},
		{"no path", map[string]any{}, true, "Missing value for required parameter 'path'.", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f.newSession(t) // a first read each time: no repeated-read note
			res, _ := f.call(t, "read_file", c.input)
			got := text(res)
			if res.IsError != c.wantErr {
				t.Fatalf("is_error = %v, want %v (%q)", res.IsError, c.wantErr, got)
			}
			if c.contain && !strings.Contains(got, c.want) || !c.contain && got != c.want {
				t.Errorf("text = %q, want %q", got, c.want)
			}
		})
	}
	t.Run("window sizes", func(t *testing.T) {
		res, _ := f.call(t, "read_file", map[string]any{"path": "long.txt"})
		if n := strings.Count(text(res), " | line "); n != 1000 {
			t.Errorf("got %d lines, want 1000", n)
		}
		res, _ = f.call(t, "read_file", map[string]any{"path": "wide.txt"})
		if n := len(text(res)); n > 410<<10 {
			t.Errorf("got %d bytes, want at most 400 KB plus a note", n)
		}
	})
}

func TestReadImage(t *testing.T) {
	f := newFixture(t)
	img := image.NewRGBA(image.Rect(0, 0, 2, 2))
	img.Set(0, 0, color.RGBA{255, 0, 0, 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	f.write(t, "dot.png", buf.String())
	res, rec := f.call(t, "read_file", map[string]any{"path": "dot.png"})
	if res.IsError || rec.Status != api.StatusSucceeded || len(res.Content) != 2 || res.Content[1].Text != "Successfully read image" {
		t.Fatalf("result = %+v, want the image, then Cline's text", res)
	}
	c := res.Content[0]
	if c.Type != api.TypeImage || c.Source == nil || c.Source.MediaType != "image/png" || c.Source.Type != "base64" {
		t.Fatalf("content = %+v, want a base64 png image", c)
	}
	data, err := base64.StdEncoding.DecodeString(c.Source.Data)
	if err != nil || !bytes.Equal(data, buf.Bytes()) {
		t.Errorf("image data differs from the file")
	}
}

// TestRepeatedReadNotes follows Cline's ReadFileToolHandler.execute
// (v4.0.12, "File Read Deduplication"): a file read again unchanged gets
// "[File already read] ..." before its content, from the third read on
// "[DUPLICATE READ] ... N times ..."; a change of the file's mtime, an edit
// by a tool (WriteToFileToolHandler, ApplyPatchHandler) or any command
// (ExecuteCommandToolHandler) starts the count over.
func TestRepeatedReadNotes(t *testing.T) {
	f := newFixture(t)
	f.write(t, "a.txt", "one\ntwo\n")
	const body = "1 | one\n2 | two\n\n(File has 2 lines total.)"
	already := "[File already read] The file 'a.txt' was already read earlier in this conversation. Returning content:\n"
	dup := func(n int) string {
		return fmt.Sprintf("[DUPLICATE READ] You have already read 'a.txt' %d times in this conversation. The content has not changed "+
			"since your last read. Please use the information you already have and proceed with your task.\n", n)
	}
	read := func(t *testing.T, want string) {
		t.Helper()
		res, _ := f.call(t, "read_file", map[string]any{"path": "a.txt"})
		// The first block: the loop guard's warning may follow.
		if got := res.Content[0].Text; got != want {
			t.Fatalf("read = %q\nwant %q", got, want)
		}
	}
	read(t, body)
	read(t, already+body)
	read(t, dup(3)+body)
	read(t, dup(4)+body)
	// Another window of the file counts too, as in Cline.
	res, _ := f.call(t, "read_file", map[string]any{"path": "a.txt", "start_line": 2})
	if got := text(res); !strings.HasPrefix(got, dup(5)+"2 | two") {
		t.Fatalf("windowed read = %q", got)
	}

	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(f.dir, "a.txt"), later, later); err != nil {
		t.Fatal(err)
	}
	read(t, body)
	read(t, already+body)

	for _, step := range []struct {
		tool  string
		input map[string]any
	}{
		{"write_to_file", map[string]any{"path": "a.txt", "content": "one\ntwo\n"}},
		{"replace_in_file", map[string]any{"path": "a.txt", "diff": "------- SEARCH\none\n=======\none\n+++++++ REPLACE"}},
		{"execute_command", map[string]any{"command": "true", "requires_approval": false}},
		{"apply_patch", map[string]any{"input": "*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-two\n+two\n*** End Patch"}},
	} {
		t.Run(step.tool, func(t *testing.T) {
			if res, _ := f.call(t, step.tool, step.input); res.IsError {
				t.Fatalf("%s failed: %q", step.tool, text(res))
			}
			read(t, body)
			read(t, already+body)
		})
	}
}

// TestImageTypeMatchesSniffing: imageType looks at a head's first byte
// before sniffing it; over every first byte, followed by each image
// signature's rest and by text, it names an image exactly when
// net/http's sniffing does.
func TestImageTypeMatchesSniffing(t *testing.T) {
	images := map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}
	rests := []string{"", "IF87a", "IF89a", "IFF\x00\x00\x00\x00WEBPVP8 ", "PNG\r\n\x1a\n", "\xD8\xFF\xE0", "\xFE\x00a", "hello world\n"}
	heads := []string{"GIF87a", "GIF89a", "RIFF\x10\x00\x00\x00WEBPVP8 ", "\x89PNG\r\n\x1a\n....", "\xFF\xD8\xFF\xE0", "  <html>", "\xEF\xBB\xBFGIF89a"}
	for b := range 256 {
		for _, rest := range rests {
			heads = append(heads, string([]byte{byte(b)})+rest)
		}
	}
	named := 0
	for _, h := range heads {
		want := http.DetectContentType([]byte(h))
		if !images[want] {
			want = ""
		} else {
			named++
		}
		if got := imageType([]byte(h)); got != want {
			t.Errorf("imageType(%q) = %q, want %q", h, got, want)
		}
	}
	if named < 5 {
		t.Fatalf("only %d heads sniffed as images: the cases do not reach the images", named)
	}
}

// A FIFO in the workspace is refused as not a regular file, at once: an
// open that waited for a writer would hold the call until one came.
func TestReadFileFIFO(t *testing.T) {
	ws := workspaceWith(t, nil)
	fifo := filepath.Join(ws.Dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for name, read := range map[string]func() (tool.Result, error){
		"read_file": func() (tool.Result, error) {
			return readFile(t.Context(), editCall(ws, "t"), &ReadFileInput{Path: "pipe"})
		},
		"read_lines": func() (tool.Result, error) {
			return readLines(t.Context(), editCall(ws, "t"), &ReadLinesInput{Path: "pipe"})
		},
	} {
		t.Run(name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() {
				_, err := read()
				done <- err
			}()
			select {
			case err := <-done:
				var te *tool.ToolError
				if !errors.As(err, &te) || te.Code != api.ToolCodeNotRegular {
					t.Fatalf("got %v, want a %s error", err, api.ToolCodeNotRegular)
				}
			case <-time.After(10 * time.Second):
				// Let the open that waits for a writer go, then fail.
				if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
					w.Close()
				}
				<-done
				t.Fatal("the read of a FIFO waited for a writer")
			}
		})
	}
}
