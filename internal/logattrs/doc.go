// Package logattrs gives a logger attributes that are formatted only when
// a line is written. slog's Logger.With formats its attributes at once, for
// every line to come; a logger made per request or per call, at a level
// that writes nothing for a successful call, paid that on every call and
// never used it.
//
// It is a library under internal/ and imports no layer of toolgate.
package logattrs
