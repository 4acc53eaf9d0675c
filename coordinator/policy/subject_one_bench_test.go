package policy

import (
	"context"
	"net/url"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/benchpair"
)

// subjectOfSeparate is SubjectOf as it was before subjectOne: the
// subject, its paths' slice and the first path's directory lookup made
// one by one. BenchmarkSubjectOf's baseline.
func (p *Policy) subjectOfSeparate(t *tool.Tool, in any, paths []string) (*Subject, tool.CommandLine) {
	s := &Subject{Tool: t.Name}
	if u := t.URL(in); u != "" {
		s.URL = u
		if pu, err := url.Parse(u); err == nil {
			s.Host = strings.ToLower(strings.TrimSuffix(pu.Hostname(), "."))
		}
	}
	if p.workspace == nil {
		return s, tool.CommandLine{}
	}
	if paths == nil {
		paths = t.Paths(in)
	}
	for _, given := range paths {
		if rel, err := p.workspace.Rel(given); err == nil {
			ref := p.Ref(rel)
			if filepath.IsAbs(given) {
				ref.Given = filepath.Clean(given)
			}
			ref.Walked = t.Walks
			s.Paths = append(s.Paths, ref)
		}
	}
	var line tool.CommandLine
	if t.RunsCommands() {
		line = t.Command(in)
		p.addCommand(s, line)
		s.Names = p.commandNames
	}
	s.Paths, s.Outside = uniquePaths(s.Paths), unique(s.Outside)
	return s, line
}

type readIn struct {
	Path string `json:"path"`
}

func readTool() *tool.Tool {
	return tool.NewTool(tool.Spec[readIn]{
		Name:  "read_file",
		Run:   func(context.Context, *tool.Call, *readIn) (tool.Result, error) { return tool.Result{}, nil },
		Paths: func(in *readIn) []string { return []string{in.Path} },
	})
}

// The subject made in one allocation is the one made before, path by
// path, for one path, several, an absolute one and a command's.
func TestSubjectOfSameAsSeparate(t *testing.T) {
	dir := t.TempDir()
	ws, err := tool.OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	p := New(Options{Workspace: ws})
	rt := readTool()
	for _, paths := range [][]string{nil, {}, {"a.go"}, {"a.go", "b/c.go", "a.go"}, {filepath.Join(dir, "x", "..", "y.go")}, {"../out.go", "in.go"}} {
		in := &readIn{Path: "from_input.go"}
		got, _ := p.SubjectOf(rt, in, paths)
		want, _ := p.subjectOfSeparate(rt, in, paths)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("paths %q: subject %+v, want %+v", paths, got, want)
		}
	}
}

var subjectSink *Subject

// BenchmarkSubjectOf measures a read's subject (one path) made in one
// allocation against subjectOfSeparate's three.
func BenchmarkSubjectOf(b *testing.B) {
	ws, err := tool.OpenWorkspace(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	p, rt, in, paths := New(Options{Workspace: ws}), readTool(), &readIn{Path: "src/a/b.go"}, []string{"src/a/b.go"}
	one := func() { subjectSink, _ = p.SubjectOf(rt, in, paths) }
	separate := func() { subjectSink, _ = p.subjectOfSeparate(rt, in, paths) }
	b.Run("allocs", func(b *testing.B) {
		b.ReportMetric(testing.AllocsPerRun(1000, one), "fast_allocs/op")
		b.ReportMetric(testing.AllocsPerRun(1000, separate), "plain_allocs/op")
	})
	b.Run("time", func(b *testing.B) { benchpair.Run(b, one, separate) })
}
