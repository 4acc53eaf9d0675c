package filememory

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/toolgate/toolgate/coordinator/tool"
)

func codeOf(err error) string {
	var te *tool.ToolError
	if errors.As(err, &te) {
		return te.Code
	}
	if err != nil {
		return "?"
	}
	return ""
}

func TestCheckFresh(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a, b := tool.StateOf([]byte("a\n"), t0), tool.StateOf([]byte("b\n"), t0)
	touched := tool.StateOf([]byte("a\n"), t0.Add(time.Hour))
	big := tool.FileState{Size: 10, ModTime: t0}
	tests := []struct {
		name        string
		requireRead bool
		seen        *tool.FileState
		cur         tool.FileState
		exists      bool
		want        string
	}{
		{name: "never read, reads optional", cur: a, exists: true, want: ""},
		{name: "never read, reads required", requireRead: true, cur: a, exists: true, want: "read_required"},
		{name: "new file, reads required", requireRead: true, exists: false, want: ""},
		{name: "unchanged", seen: &a, cur: a, exists: true, want: ""},
		{name: "content changed", seen: &a, cur: b, exists: true, want: "file_changed"},
		{name: "touched, same content", seen: &a, cur: touched, exists: true, want: ""},
		{name: "unhashed, mtime changed", seen: &big, cur: tool.FileState{Size: 10, ModTime: t0.Add(time.Second)}, exists: true, want: "file_changed"},
		{name: "unhashed, unchanged", seen: &big, cur: big, exists: true, want: ""},
		{name: "deleted since read", seen: &a, exists: false, want: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := New(Config{RequireRead: tc.requireRead})
			if tc.seen != nil {
				m.Remember("f.txt", *tc.seen)
			}
			if got := codeOf(m.CheckFresh("f.txt", tc.cur, tc.exists)); got != tc.want {
				t.Errorf("CheckFresh code = %q, want %q", got, tc.want)
			}
		})
	}
	t.Run("nil memory guards nothing", func(t *testing.T) {
		var m *Memory
		m.Remember("f.txt", a)
		if err := m.CheckFresh("f.txt", b, true); err != nil {
			t.Errorf("CheckFresh = %v, want nil", err)
		}
	})
}

func TestFileMemoryBounded(t *testing.T) {
	m := New(Config{})
	for i := range maxSeenFiles + 1 {
		m.Remember(fmt.Sprintf("f%d", i), tool.FileState{Size: int64(i)})
	}
	if got := len(m.seen); got > maxSeenFiles {
		t.Errorf("remembers %d files, want at most %d", got, maxSeenFiles)
	}
	if _, ok := m.Seen("f0"); ok {
		t.Errorf("oldest file still remembered")
	}
	if _, ok := m.Seen(fmt.Sprint("f", maxSeenFiles)); !ok {
		t.Errorf("newest file forgotten")
	}
}

func TestEditHistoryBounds(t *testing.T) {
	prior := func(id string, size int) tool.Prior { return tool.Prior{ToolUseID: id, Content: make([]byte, size)} }
	t.Run("count", func(t *testing.T) {
		h := newEditHistory(2, 1000)
		for _, id := range []string{"a", "b", "c"} {
			h.keep(prior(id, 1))
		}
		if _, ok := h.take("a"); ok {
			t.Errorf("oldest kept beyond the count bound")
		}
		if _, ok := h.take("c"); !ok {
			t.Errorf("newest dropped")
		}
	})
	t.Run("bytes", func(t *testing.T) {
		h := newEditHistory(10, 100)
		h.keep(prior("a", 60))
		h.keep(prior("b", 60))
		if _, ok := h.take("a"); ok {
			t.Errorf("oldest kept beyond the byte bound")
		}
		if h.bytes != 60 {
			t.Errorf("bytes = %d, want 60", h.bytes)
		}
	})
	t.Run("too large alone", func(t *testing.T) {
		h := newEditHistory(10, 100)
		if h.keep(prior("a", 101)) {
			t.Errorf("keep of a prior over the byte bound = true, want false")
		}
	})
	t.Run("take once", func(t *testing.T) {
		h := newEditHistory(10, 100)
		h.keep(prior("a", 10))
		if _, ok := h.take("a"); !ok {
			t.Fatal("first take failed")
		}
		if _, ok := h.take("a"); ok || h.bytes != 0 || len(h.order) != 0 {
			t.Errorf("second take found it again (bytes %d, order %v)", h.bytes, h.order)
		}
	})
}

func TestFileMemoryEvictsByRecency(t *testing.T) {
	m := New(Config{})
	for i := range maxSeenFiles {
		m.Remember(fmt.Sprintf("f%d", i), tool.FileState{})
	}
	for range maxSeenFiles {
		m.Remember("f0", tool.FileState{}) // f0 stays the most recent
	}
	m.Remember("new", tool.FileState{})
	if got, min := len(m.seen), maxSeenFiles*8/10; got < min {
		t.Errorf("eviction left %d files, want at least %d: it must drop only the oldest tenth", got, min)
	}
	if _, ok := m.Seen("f0"); !ok {
		t.Errorf("recently remembered file evicted")
	}
}
