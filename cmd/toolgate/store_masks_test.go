package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/toolgate/toolgate/internal/benchpair"
)

// TestDatabaseFilesMaskedByTheirDirectory: the state database's own files
// are protected and masked one by one only where the state directory,
// masked whole, does not hold them: a store.path elsewhere, or a default
// place whose directory is a symbolic link out of the state directory.
func TestDatabaseFilesMaskedByTheirDirectory(t *testing.T) {
	tmp := t.TempDir()
	state := filepath.Join(tmp, "state", "toolgate")
	inside := filepath.Join(state, "0123", "state.db")
	elsewhere := filepath.Join(tmp, "elsewhere", "state.db")
	linked := filepath.Join(state, "4567", "state.db")
	for _, d := range []string{filepath.Dir(inside), filepath.Dir(elsewhere)} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Dir(elsewhere), filepath.Dir(linked)); err != nil {
		t.Fatal(err)
	}
	files := func(p string) []string { return []string{p, p + "-wal", p + "-shm", p + ".lock"} }
	for _, c := range []struct {
		name, path string
		want       []string
	}{
		{"default place", inside, nil},
		{"store.path elsewhere", elsewhere, files(elsewhere)},
		{"default place linked elsewhere", linked, files(linked)},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := databaseFiles(c.path, []string{filepath.Join(tmp, "no-such-dir"), state}); !slices.Equal(got, c.want) {
				t.Errorf("databaseFiles(%s) = %v, want %v", c.path, got, c.want)
			}
		})
	}
}

// BenchmarkDatabaseMasks resolves, as the sandbox does for every path it
// masks before each command (an lstat, then EvalSymlinks), the masks a
// state database in its default place adds now (none: its directory is
// masked whole) against its four files, as before.
//
//	go test -run '^$' -bench DatabaseMasks ./cmd/toolgate/
func BenchmarkDatabaseMasks(b *testing.B) {
	state := filepath.Join(b.TempDir(), "state", "toolgate")
	path := filepath.Join(state, "0123456789abcdef", "state.db")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		b.Fatal(err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm", path + ".lock"} {
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	resolve := func(paths []string) {
		for _, p := range paths {
			if _, err := os.Lstat(p); err == nil {
				_, _ = filepath.EvalSymlinks(p)
			}
		}
	}
	masks := databaseFiles(path, []string{state}) // once, at start-up
	benchpair.Run(b, func() { resolve(masks) },
		func() { resolve([]string{path, path + "-wal", path + "-shm", path + ".lock"}) })
}
