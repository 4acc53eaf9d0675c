// Package patch parses and applies the "*** Begin Patch" format that
// Cline's apply_patch and Codex's apply-patch take: Add, Update (with an
// optional Move to) and Delete File sections, @@ anchors, and hunks of
// context, "-" and "+" lines. It works on text only; writing files is the
// caller's job.
package patch
