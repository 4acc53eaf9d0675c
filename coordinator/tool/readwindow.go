package tool

import "time"

// ReadWindow is the part of a file a read showed and the file's
// modification time then: a read of the same window of a file whose
// mtime has not moved may be answered "unchanged" instead of repeating
// the lines, as Claude Code's Read answers it.
type ReadWindow struct {
	Offset, Limit int
	ModTime       time.Time
}

// same reports whether w is the window o of the file at the same mtime,
// to the millisecond, as Claude Code compares them.
func (w ReadWindow) same(o ReadWindow) bool {
	return w.Offset == o.Offset && w.Limit == o.Limit && w.ModTime.UnixMilli() == o.ModTime.UnixMilli()
}

// RememberWindow records the window a read of rel just showed, after
// Remember recorded the read itself. A later Remember (a write, an edit,
// another read) drops it.
func (m *FileMemory) RememberWindow(rel string, w ReadWindow) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if f, ok := m.seen[rel]; ok {
		f.window = &w
		m.seen[rel] = f
	}
}

// ReadBefore reports whether the session's last dealing with rel was a
// read of the window w, with the file's mtime unchanged since.
func (m *FileMemory) ReadBefore(rel string, w ReadWindow) bool {
	if m == nil {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	f, ok := m.seen[rel]
	return ok && f.window != nil && f.window.same(w)
}
