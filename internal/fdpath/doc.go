// Package fdpath tells which file an open handle refers to, after every
// symlink on the way was followed. A check made on that answer is a check
// on the file actually opened, so a symlink swapped in after a path was
// checked cannot redirect the open past the check.
package fdpath
