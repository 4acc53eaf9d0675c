package codedefs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"
)

// ErrNoCtags is returned when the ctags binary cannot be found.
var ErrNoCtags = errors.New("list_code_definition_names needs universal-ctags (apt-get install universal-ctags)")

// maxCtagsOutput bounds what is decoded from ctags: with patterns turned off
// a tag is under a hundred bytes, so this is far above any honest output.
const maxCtagsOutput = 64 << 20

// tag is the part of one ctags JSON line that is used.
type tag struct {
	Type     string `json:"_type"`
	Path     string `json:"path"`
	Language string `json:"language"`
	Line     int    `json:"line"`
	Kind     string `json:"kind"`
}

// ctagsArgs are the options of every run. --options=NONE comes first so that
// no option file (~/.ctags.d, ./.ctags.d) is read; patterns are dropped since
// the printed text comes from the files themselves.
func ctagsArgs(files []string) []string {
	args := []string{
		"--options=NONE",
		"--output-format=json",
		"--fields=+nKzl",
		"--fields=-P",
		"--sort=no",
		"-f", "-",
	}
	args = append(args, mapArgs...)
	return append(args, files...)
}

// runCtags runs ctags once over files (names relative to dir) and returns its
// tags. ctags is killed when ctx ends.
func runCtags(ctx context.Context, bin, dir string, files []string) ([]tag, error) {
	path, err := exec.LookPath(bin)
	if err != nil {
		return nil, ErrNoCtags
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, ctagsArgs(files)...)
	cmd.Dir = dir
	cmd.Env = []string{"LC_ALL=C"}
	cmd.WaitDelay = time.Second
	var stderr capWriter
	stderr.max = 4 << 10
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("ctags: %w", err)
	}
	if err := cmd.Start(); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return nil, ErrNoCtags
		}
		return nil, fmt.Errorf("ctags: %w", err)
	}
	tags, decodeErr := decodeTags(io.LimitReader(stdout, maxCtagsOutput))
	if decodeErr != nil {
		cancel() // stop a process whose output is no longer read
	}
	waitErr := cmd.Wait()
	switch {
	case decodeErr != nil:
		return nil, fmt.Errorf("ctags output: %w", decodeErr)
	case waitErr != nil && ctx.Err() != nil:
		return nil, fmt.Errorf("ctags: %w", context.Cause(ctx))
	case waitErr != nil:
		return nil, fmt.Errorf("ctags: %w: %s", waitErr, stderr.summary())
	}
	return tags, nil
}

// decodeTags reads ctags JSON lines up to EOF, keeping only tag records
// (pseudo-tags and other record types are skipped).
func decodeTags(r io.Reader) ([]tag, error) {
	dec := json.NewDecoder(r)
	var tags []tag
	for {
		var t tag
		err := dec.Decode(&t)
		if errors.Is(err, io.EOF) {
			return tags, nil
		}
		if err != nil {
			return nil, err
		}
		if t.Type == "tag" && t.Line > 0 {
			tags = append(tags, t)
		}
	}
}

// capWriter keeps the first max bytes written to it and discards the rest, so
// a chatty process cannot grow memory.
type capWriter struct {
	buf bytes.Buffer
	max int
}

func (w *capWriter) Write(p []byte) (int, error) {
	if room := w.max - w.buf.Len(); room > 0 {
		w.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// summary is the stderr text without ctags' routine notices.
func (w *capWriter) summary() string {
	var keep []string
	for line := range strings.Lines(w.buf.String()) {
		if !strings.Contains(line, "Notice:") {
			keep = append(keep, strings.TrimSpace(line))
		}
	}
	return strings.Join(keep, "; ")
}
