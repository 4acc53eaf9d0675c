package outfiles

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"syscall"
)

// Limits bound what the output files hold.
type Limits struct {
	// File caps one file (default 64 MiB, Claude Code's own cap); the
	// rest of a longer output is not written.
	File int64
	// Session caps the bytes a session's files hold together (default
	// 256 MiB); Files caps how many it has (default 100). A new file
	// that would pass either removes the session's oldest files first.
	Session int64
	Files   int
	// Total caps the bytes of every session's files together (default
	// 1 GiB); past it a file is not saved and the caller answers without
	// one.
	Total int64
}

// Defaults of Limits.
const (
	DefaultFile    = 64 << 20
	DefaultSession = 256 << 20
	DefaultFiles   = 100
	DefaultTotal   = 1 << 30
)

func (l *Limits) defaults() {
	if l.File <= 0 {
		l.File = DefaultFile
	}
	if l.Session <= 0 {
		l.Session = DefaultSession
	}
	if l.Files <= 0 {
		l.Files = DefaultFiles
	}
	if l.Total <= 0 {
		l.Total = DefaultTotal
	}
}

// Subdirectories of a session's directory, named as Claude Code names
// its own: saved results and background tasks' output.
const (
	ResultsDir = "tool-results"
	TasksDir   = "tasks"
)

// fileName is every name a session's files may have: one directory, an
// id, the extension of its kind.
var fileName = regexp.MustCompile(`^(` + ResultsDir + `/[A-Za-z0-9_-]{1,64}\.txt|` + TasksDir + `/[A-Za-z0-9_-]{1,64}\.output)$`)

// ErrNotOutput: a path names no output file of the session.
var ErrNotOutput = errors.New("not an output file of this session")

// ErrFull: the files of every session together reached Limits.Total.
var ErrFull = errors.New("the output files reached their cap")

// Area is the server's output files, one directory per session. It is
// safe for concurrent use.
type Area struct {
	dir string
	lim Limits

	mu       sync.Mutex
	total    int64
	sessions map[string]*session
}

// session is one session's directory and what its files hold.
type session struct {
	sid   string
	dir   string
	root  *os.Root
	files []saved // oldest first
	bytes int64
}

type saved struct {
	rel  string
	size int64
}

// New returns an Area under dir, made 0700 when first needed. Its
// directory should be masked from every command (the spill area is).
func New(dir string, lim Limits) *Area {
	lim.defaults()
	return &Area{dir: dir, lim: lim, sessions: map[string]*session{}}
}

// safeID is a session id usable as a directory name as it is.
var safeID = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// Dir is the directory of session sid's files (made or not).
func (a *Area) Dir(sid string) string {
	name := sid
	if !safeID.MatchString(sid) {
		sum := sha256.Sum256([]byte(sid))
		name = "s-" + hex.EncodeToString(sum[:16])
	}
	return filepath.Join(a.dir, name)
}

// Path is the absolute path of session sid's file rel.
func (a *Area) Path(sid, rel string) string {
	return filepath.Join(a.Dir(sid), filepath.FromSlash(rel))
}

// Save writes r, up to Limits.File bytes, to session sid's file rel
// (ResultsDir/<id>.txt or TasksDir/<id>.output), replacing the file
// whole (a temporary file renamed), and returns its path and how many
// bytes it holds. done is closed when the session ends; the session's
// files are removed then (nil: when the server stops).
func (a *Area) Save(sid string, done <-chan struct{}, rel string, r io.Reader) (string, int64, error) {
	if !fileName.MatchString(rel) {
		return "", 0, fmt.Errorf("outfiles: %q: %w", rel, ErrNotOutput)
	}
	s, err := a.session(sid, done)
	if err != nil {
		return "", 0, err
	}
	sub := filepath.Dir(filepath.FromSlash(rel))
	if err := s.root.Mkdir(sub, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return "", 0, err
	}
	tmp := filepath.Join(sub, ".tmp-"+filepath.Base(rel))
	f, err := s.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return "", 0, err
	}
	n, err := io.Copy(f, io.LimitReader(r, a.lim.File))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = a.admit(s, rel, n)
	}
	if err == nil {
		err = s.root.Rename(tmp, filepath.FromSlash(rel))
	}
	if err != nil {
		_ = s.root.Remove(tmp)
		return "", 0, err
	}
	return filepath.Join(s.dir, filepath.FromSlash(rel)), n, nil
}

// session finds or makes session sid's directory.
func (a *Area) session(sid string, done <-chan struct{}) (*session, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if s := a.sessions[sid]; s != nil {
		return s, nil
	}
	dir := a.Dir(sid)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	s := &session{sid: sid, dir: dir, root: root}
	a.sessions[sid] = s
	if done != nil {
		go func() {
			<-done
			_ = a.Remove(sid)
		}()
	}
	return s, nil
}

// admit counts a new file of n bytes named rel (replacing one of that
// name), removing the session's oldest files while it would pass the
// session's bounds, or refuses it past the Area's total.
func (a *Area) admit(s *session, rel string, n int64) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.sessions[s.sid] != s {
		return ErrNotOutput // the session ended meanwhile
	}
	for i, f := range s.files {
		if f.rel == rel {
			s.files = append(s.files[:i], s.files[i+1:]...)
			s.bytes -= f.size
			a.total -= f.size
			break
		}
	}
	for len(s.files) > 0 && (len(s.files)+1 > a.lim.Files || s.bytes+n > a.lim.Session) {
		old := s.files[0]
		s.files = s.files[1:]
		s.bytes -= old.size
		a.total -= old.size
		_ = s.root.Remove(filepath.FromSlash(old.rel))
	}
	if a.total+n > a.lim.Total {
		return ErrFull
	}
	s.files = append(s.files, saved{rel, n})
	s.bytes += n
	a.total += n
	return nil
}

// Open opens session sid's output file at path (absolute, as an answer
// named it) for reading, and returns it with its name within the
// session's directory. A path outside that directory, a name that is
// not an output file's, a symlink or anything but a regular file is
// refused with ErrNotOutput; a file not (or no longer) there with an
// error satisfying os.ErrNotExist.
func (a *Area) Open(sid, path string) (*os.File, string, error) {
	rel, ok := a.Rel(sid, path)
	if !ok {
		return nil, "", ErrNotOutput
	}
	a.mu.Lock()
	s := a.sessions[sid]
	a.mu.Unlock()
	if s == nil {
		return nil, "", fmt.Errorf("%s: %w", rel, os.ErrNotExist)
	}
	// os.Root refuses a symlink leading out of the directory, and
	// O_NOFOLLOW one within it: toolgate writes no symlink there.
	f, err := s.root.OpenFile(filepath.FromSlash(rel), os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil, "", err
	}
	if err != nil {
		return nil, "", fmt.Errorf("%w: %v", ErrNotOutput, err)
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		_ = f.Close()
		return nil, "", ErrNotOutput
	}
	return f, rel, nil
}

// Rel reports whether path names one of session sid's output files (by
// its form: the file may not exist), and its name within the session's
// directory.
func (a *Area) Rel(sid, path string) (string, bool) {
	rel, err := filepath.Rel(a.Dir(sid), filepath.Clean(path))
	if err != nil || !filepath.IsAbs(path) {
		return "", false
	}
	rel = filepath.ToSlash(rel)
	return rel, fileName.MatchString(rel)
}

// Remove removes session sid's files and directory.
func (a *Area) Remove(sid string) error {
	a.mu.Lock()
	s := a.sessions[sid]
	delete(a.sessions, sid)
	if s != nil {
		a.total -= s.bytes
	}
	a.mu.Unlock()
	if s == nil {
		return nil
	}
	_ = s.root.Close()
	return os.RemoveAll(s.dir)
}
