// Package atomicfile writes files inside a workspace so that a crash at any
// moment leaves either the old content or the new, never a mix.
//
// Write puts the data in a temporary file in the target's directory, syncs
// it, renames it over the target and syncs the directory. Every path goes
// through an *os.Root, so absolute names, ".." escapes and symlinks leading
// out of the workspace are refused by the kernel-backed lookups of os.Root
// rather than by string checks that a racing symlink swap could defeat.
//
// Choices a caller should know:
//   - A symlink as the final component is followed (inside the workspace
//     only) and its target is replaced; the link itself stays. A link that
//     is absolute or leads out is refused and nothing is created outside.
//   - A target with other hard links (nlink > 1) is written: rename gives
//     the name a new inode, so the other links, wherever they are, keep the
//     old content and are never written through. The link is broken, which
//     is the safe outcome; reading through such links is the reader's
//     concern (a hard link can expose an outside file to reads).
//   - The existing file's permission bits are kept (and on Unix its owner,
//     when the process may set it); a new file gets defaultPerm less umask.
//   - A crash between creating and renaming the temporary file leaves that
//     file, named ".<name>.toolgate-<16 hex>.tmp", beside the target. The
//     next Write to the same target removes such files older than StaleAge,
//     and SweepTemps removes them from the whole workspace (at start-up).
//
// It owns crash-safe file replacement and the clean-up of its temporary
// files. It is a library under internal/ and imports no layer of toolgate;
// the edit tools in handlers write through it and cmd/toolgate sweeps
// leftover temporary files with it at start-up.
package atomicfile
