// Package getdents lists directories with getdents64(2) and takes each
// entry's type from the record's d_type, so that a listing costs no
// stat per entry (package os lstats every entry of a directory opened
// through an os.Root). It is Linux-only; elsewhere its callers list
// through package os.
package getdents
