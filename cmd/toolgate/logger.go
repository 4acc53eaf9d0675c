package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/lmittmann/tint"
	"github.com/mattn/go-isatty"
)

// newLogger logs in colour through tint on a terminal and as JSON
// otherwise (or as the format flag says). JSON lines are gathered in a
// logBuffer; flush writes what it holds, and must run before the program
// ends.
func newLogger(w io.Writer, format, level string) (logger *slog.Logger, flush func(), err error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, nil, fmt.Errorf("log level %q: use debug, info, warn or error", level)
	}
	if format == "auto" {
		format = "json"
		if f, ok := w.(*os.File); ok && isatty.IsTerminal(f.Fd()) {
			format = "text"
		}
	}
	switch format {
	case "text": // a person reading as it comes: unbuffered
		return slog.New(tint.NewTextHandler(w, &tint.Options{Level: lv})), func() {}, nil
	case "json":
		buf := newLogBuffer(w, logFlushAfter)
		return slog.New(requestLineHandler{flushingHandler{slog.NewJSONHandler(buf, &slog.HandlerOptions{Level: lv}), buf}}), buf.Flush, nil
	}
	return nil, nil, fmt.Errorf("log format %q: use auto, text or json", format)
}
