package filememory

import "github.com/toolgate/toolgate/coordinator/tool"

// RememberWindow records the window a read of rel just showed, after
// Remember recorded the read itself. A later Remember (a write, an edit,
// another read) drops it.
func (m *Memory) RememberWindow(rel string, w tool.ReadWindow) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if f, ok := m.seen[rel]; ok {
		f.window = &w
	}
}

// ReadBefore reports whether the session's last dealing with rel was a
// read of the window w, with the file's mtime unchanged since.
func (m *Memory) ReadBefore(rel string, w tool.ReadWindow) bool {
	if m == nil {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	f, ok := m.seen[rel]
	return ok && f.window != nil && f.window.Same(w)
}
