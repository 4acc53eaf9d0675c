package helper

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckMountIDs: a path passes while it resolves to the mount noted
// for it, and fails once it resolves to another mount or to nothing.
func TestCheckMountIDs(t *testing.T) {
	points := []string{"/", "/proc"}
	ids, err := MountIDs("", points)
	if errors.Is(err, ErrNoMountIDs) {
		t.Skip("statx reports no mount IDs on this kernel")
	}
	if err != nil {
		t.Fatal(err)
	}
	if ids[0] == ids[1] {
		t.Fatalf("/ and /proc have the same mount ID %d", ids[0])
	}
	if err := CheckMountIDs("", points, ids); err != nil {
		t.Errorf("unchanged mounts fail: %v", err)
	}
	dir := t.TempDir()
	gone := filepath.Join(dir, "gone")
	if err := os.WriteFile(gone, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	noted, err := MountIDs("", []string{gone})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		paths []string
		ids   []uint64
	}{
		{"another mount's ID", []string{dir}, ids[1:]},
		{"a path that is gone", []string{gone}, noted},
		{"IDs for other paths", points, ids[:1]},
	} {
		err := CheckMountIDs("", tc.paths, tc.ids)
		if err == nil || !strings.Contains(err.Error(), "mount") {
			t.Errorf("%s: %v, want the sandbox changed", tc.name, err)
		}
	}
}
