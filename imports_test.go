package toolgate

import (
	"bufio"
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/toolgate/toolgate"

// importEdge is one import of one package of the module, both named
// relative to the module root ("server", "internal/ignore").
type importEdge struct{ from, to string }

// moduleImports lists, with go list, every import between packages of the
// module. With tests set it also lists the imports of the packages' tests.
func moduleImports(t *testing.T, tests bool) []importEdge {
	t.Helper()
	format := "{{.ImportPath}} {{join .Imports \" \"}}"
	if tests {
		format = "{{.ImportPath}} {{join .Imports \" \"}} {{join .TestImports \" \"}} {{join .XTestImports \" \"}}"
	}
	out, err := exec.CommandContext(t.Context(), "go", "list", "-f", format, "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var edges []importEdge
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		from := relative(fields[0])
		for _, imp := range fields[1:] {
			if imp == module || strings.HasPrefix(imp, module+"/") {
				if to := relative(imp); to != from {
					edges = append(edges, importEdge{from, to})
				}
			}
		}
	}
	if len(edges) == 0 {
		t.Fatal("go list reported no imports inside the module")
	}
	return edges
}

func relative(path string) string {
	if path == module {
		return "."
	}
	return strings.TrimPrefix(path, module+"/")
}

// within reports whether pkg is dir or a package below it.
func within(pkg, dir string) bool {
	return pkg == dir || strings.HasPrefix(pkg, dir+"/")
}

// TestImportDirections holds the layering of ARCHITECTURE.md: api <-
// coordinator <- handlers <- cmd and api <- coordinator <- server <- cmd;
// the server never reaches a handler; handlers see the coordinator's tool
// contract, not its internals; libraries under internal/ import no layer;
// dialects (dialect/...) sit at the edge: they import api, the tool
// contract and handlers, nothing imports them but cmd.
func TestImportDirections(t *testing.T) {
	layers := []string{"api", "coordinator", "handlers", "server", "cmd"}
	rules := []struct {
		name  string
		tests bool // whether the packages' tests must keep the rule too
		bad   func(e importEdge) bool
	}{
		{"server must not import handlers", false, func(e importEdge) bool {
			return within(e.from, "server") && within(e.to, "handlers")
		}},
		{"handlers must not import coordinator internals", false, func(e importEdge) bool {
			return within(e.from, "handlers") && within(e.to, "coordinator") && !handlerMayImport(e.to)
		}},
		{"handlers reach the MCP hub through tool.MCP only", false, func(e importEdge) bool {
			return within(e.from, "handlers") && e.to == "internal/mcphub"
		}},
		{"internal must not import a layer", true, func(e importEdge) bool {
			if !within(e.from, "internal") {
				return false
			}
			for _, l := range layers {
				if within(e.to, l) {
					return true
				}
			}
			return false
		}},
		{"api imports nothing of the module", true, func(e importEdge) bool {
			return within(e.from, "api")
		}},
		{"nothing but cmd imports cmd", true, func(e importEdge) bool {
			return within(e.to, "cmd") && !within(e.from, "cmd")
		}},
		{"coordinator must not import handlers or server", true, func(e importEdge) bool {
			return within(e.from, "coordinator") && (within(e.to, "handlers") || within(e.to, "server"))
		}},
		// Dialects live at the edges: the core and the handlers never
		// learn which client called (docs/architecture.md).
		{"handlers and coordinator must not import a dialect", false, func(e importEdge) bool {
			return (within(e.from, "handlers") || within(e.from, "coordinator")) && within(e.to, "dialect")
		}},
		// Their tests may build calls with the default dialect's texts
		// (dialect/cline, which imports neither), to check what a session
		// that names no dialect reads; no other dialect.
		{"handlers' and coordinator's tests import no dialect but the default", true, func(e importEdge) bool {
			return (within(e.from, "handlers") || within(e.from, "coordinator")) && within(e.to, "dialect") && e.to != "dialect/cline"
		}},
		{"only cmd imports the dialects", false, func(e importEdge) bool {
			return within(e.to, "dialect") && !within(e.from, "cmd") && !within(e.from, "dialect")
		}},
		{"a dialect imports api, the tool contract, handlers and internal only", false, func(e importEdge) bool {
			return within(e.from, "dialect") && !dialectMayImport(e.from, e.to)
		}},
		// The coordinator's seams: each package imports what its doc.go
		// says, and none reaches back into the coordinator.
		{"a coordinator seam imports only what its doc.go allows", true, func(e importEdge) bool {
			allowed, ok := seamImports[e.from]
			return ok && !within(e.to, "internal") && !slices.Contains(allowed, e.to)
		}},
		// The tool contract holds interfaces and the types a handler
		// needs: no state, nothing concrete. What it may import beyond
		// api is listed, library by library.
		{"the tool contract imports api and the libraries of its types only", false, func(e importEdge) bool {
			return e.from == "coordinator/tool" && e.to != "api" && !slices.Contains(toolContractLibraries, e.to)
		}},
	}
	edges := map[bool][]importEdge{false: moduleImports(t, false), true: moduleImports(t, true)}
	for _, r := range rules {
		t.Run(r.name, func(t *testing.T) {
			for _, e := range edges[r.tests] {
				if r.bad(e) {
					t.Errorf("%s imports %s", e.from, e.to)
				}
			}
		})
	}
}

// seamImports lists, for each package split out of the coordinator, the
// packages of the module it may import besides internal/.
var seamImports = map[string][]string{
	"coordinator/eventlog": {"api"},
	// A session's file memory implements the contract's Files.
	"coordinator/filememory": {"api", "coordinator/tool"},
	"coordinator/hooks":      {},
	// A session's background jobs implement the contract's Jobs.
	"coordinator/jobs": {"api", "coordinator/tool"},
	// The policy judges a call from the tool's declarations; the session
	// state it needs (rules, mode) is passed in by the coordinator.
	"coordinator/policy": {"api", "coordinator/tool"},
	// Subagents reach the coordinator through their Host interface.
	"coordinator/subagents": {"api", "coordinator/tool"},
	// The tool contract names no concrete part of toolgate: the MCP hub
	// reaches handlers through the tool.MCP interface.
	"coordinator/tool": {"api"},
}

// toolContractLibraries are the internal/ libraries whose types the tool
// contract names: a path's handle (fdpath), the ignore rules in force
// (ignore), a command's spill area (process) and confinement (sandbox);
// the directory listing the workspace's walk reads with (getdents), and
// the system calls its plain opens make without the scheduler (nowait).
// The concrete parts behind the contract's interfaces (jobs, file
// memory, the MCP hub) are not among them.
var toolContractLibraries = []string{"internal/fdpath", "internal/getdents", "internal/ignore", "internal/nowait", "internal/process", "internal/sandbox"}

// dialectMayImport reports whether dialect package from may import to: a
// dialect maps its calls onto the registry's tools (the tool contract,
// handlers' input types); only the list (package dialect) imports the
// dialects themselves.
func dialectMayImport(from, to string) bool {
	switch {
	case to == "api", to == "coordinator/tool", to == "handlers", within(to, "internal"):
		return true
	case from == "dialect" && within(to, "dialect"):
		return true
	}
	return false
}

// handlerMayImport lists the coordinator packages a handler may compile
// against: the tool contract alone (the MCP hub, the session's jobs and
// file memory reach handlers through its interfaces).
func handlerMayImport(pkg string) bool {
	return pkg == "coordinator/tool"
}

// TestOneRandomSource: every random id, token and nonce comes from
// internal/randid, the one package that imports a random number source;
// a package drawing its own bytes fails here.
func TestOneRandomSource(t *testing.T) {
	out, err := exec.CommandContext(t.Context(), "go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || relative(fields[0]) == "internal/randid" {
			continue
		}
		for _, imp := range fields[1:] {
			switch imp {
			case "crypto/rand", "math/rand", "math/rand/v2":
				t.Errorf("%s imports %s; draw random ids from internal/randid", relative(fields[0]), imp)
			}
		}
	}
}

// dialectName matches a reference to a dialect in Go source: a dialect's
// name (api.DialectCline) or its declaration (tool.Dialect, DialectTool).
var dialectName = regexp.MustCompile(`\b(api|tool)\.Dialect\w*`)

// TestHandlersNameNoDialect: handlers never know which dialect called,
// so no handler source names one; a dialect's tools and texts live in its
// package under dialect/.
func TestHandlersNameNoDialect(t *testing.T) {
	err := filepath.WalkDir("handlers", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(src), "\n") {
			if m := dialectName.FindString(line); m != "" {
				t.Errorf("%s:%d names a dialect (%s); move the dialect's wording to its package under dialect/", path, i+1, m)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestNoContractAliases: the tool contract has one name per type,
// tool.X. The coordinator once re-exported 21 of them as aliases, which
// let callers reach the contract through the whole coordinator; an alias
// of a type of package tool declared anywhere else fails here.
func TestNoContractAliases(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasPrefix(path, "coordinator/tool/") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok || !ts.Assign.IsValid() {
				return true
			}
			typ := ts.Type
			if ix, ok := typ.(*ast.IndexExpr); ok {
				typ = ix.X
			}
			if sel, ok := typ.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == "tool" {
					t.Errorf("%s: %s aliases tool.%s; name the contract's type as tool.%s", fset.Position(ts.Pos()), ts.Name.Name, sel.Sel.Name, sel.Sel.Name)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// clineWord matches Cline's name in an identifier (clineFileSaved,
// api.DialectCline) or a string ("cline"); the names of the workspace
// files toolgate honours for every client (.clineignore, .clinerules,
// cline_mcp_settings.json) are workspace conventions, not the dialect.
var clineWord = regexp.MustCompile(`(?i)cline`)

// workspaceFileName matches the files toolgate protects or honours in
// every session whatever its dialect.
var workspaceFileName = regexp.MustCompile(`(?i)cline(ignore|rules|_mcp_settings)`)

// TestCoreNamesNoCline: Cline is a dialect like the others, so neither the
// handlers nor the coordinator name it outside comments: its texts, its
// error wrapping and its behaviour flags live in dialect/cline, behind
// the tool contract (tool.Texts, tool.Dialect). A handler or coordinator
// source that names Cline in an identifier or a string fails here.
func TestCoreNamesNoCline(t *testing.T) {
	fset := token.NewFileSet()
	for _, root := range []string{"handlers", "coordinator"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution) // comments left out
			if err != nil {
				return err
			}
			ast.Inspect(f, func(n ast.Node) bool {
				var text string
				switch n := n.(type) {
				case *ast.Ident:
					text = n.Name
				case *ast.BasicLit:
					if n.Kind == token.STRING {
						text = n.Value
					}
				}
				if namesCline(text) {
					t.Errorf("%s names Cline (%.60s); its wording and flags belong in dialect/cline", fset.Position(n.Pos()), text)
				}
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// namesCline reports whether text names Cline other than in a workspace
// file's name.
func namesCline(text string) bool {
	return clineWord.MatchString(workspaceFileName.ReplaceAllString(text, ""))
}
