// Package outfiles keeps the output files of sessions: the whole output
// of a command too long for its result, and a background job's output,
// written where the session's own file reader (Claude Code's Read) may
// open them, and nowhere else.
//
// Each session has a directory of its own under the Area's directory,
// made on its first file and removed when the session ends. The Area's
// directory lives in the server's spill area, outside the workspace,
// which the command sandbox masks whole: no command, of any session,
// reads or writes these files. A session reads its own files only, by
// their names (tool-results/<id>.txt, tasks/<id>.output), through an
// os.Root of its directory that follows no symlink.
package outfiles
