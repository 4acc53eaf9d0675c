// Package typescript tests the TypeScript client (@toolgate/client)
// against a real toolgate: it builds the package with its pinned dev
// tools (test.sh installs them and names their node_modules in
// TOOLGATE_TS_CLIENT_MODULES), starts `toolgate serve` behind a proxy that
// can cut connections, and runs the package's node:test suites, its
// example agent loops and a headless chromium page driving its browser
// bundle.
package typescript

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	pngenc "image/png"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/conformance"
)

// workspaceFile is a.txt's text, which test/env.ts expects.
const workspaceFile = "hello from the workspace\n"

// nodeModules is the dev tools' node_modules, or a skip (a failure in CI).
func nodeModules(t *testing.T) string {
	t.Helper()
	nm := os.Getenv("TOOLGATE_TS_CLIENT_MODULES")
	if nm == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("TOOLGATE_TS_CLIENT_MODULES is not set; test.sh installs the package's dev dependencies and sets it")
		}
		t.Skip("TOOLGATE_TS_CLIENT_MODULES is not set; test.sh installs the package's dev dependencies and sets it")
	}
	if _, err := os.Stat(filepath.Join(nm, "typescript", "package.json")); err != nil {
		t.Fatalf("TOOLGATE_TS_CLIENT_MODULES=%s has no typescript: %v", nm, err)
	}
	return nm
}

var (
	buildOnce sync.Once
	buildDir  string
	buildErr  error
	buildOut  []byte
)

// built copies the package (and openapi.yaml, which its build generates
// types from) to a temporary tree, builds dist/ and the tests, and
// returns the package's directory there; once per test binary.
func built(t *testing.T) string {
	t.Helper()
	nm := nodeModules(t)
	buildOnce.Do(func() {
		root, err := os.MkdirTemp("", "toolgate-ts-client-")
		if err != nil {
			buildErr = err
			return
		}
		buildDir = filepath.Join(root, "clients", "typescript")
		if buildErr = copyPackage(".", buildDir); buildErr != nil {
			return
		}
		spec, err := os.ReadFile("../../openapi.yaml")
		if err != nil {
			buildErr = err
			return
		}
		if buildErr = os.WriteFile(filepath.Join(root, "openapi.yaml"), spec, 0o644); buildErr != nil {
			return
		}
		if buildErr = os.Symlink(nm, filepath.Join(buildDir, "node_modules")); buildErr != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "npm", "run", "--silent", "build")
		cmd.Dir = buildDir
		if buildOut, buildErr = cmd.CombinedOutput(); buildErr != nil {
			return
		}
		cmd = exec.CommandContext(ctx, "npm", "run", "--silent", "build:test")
		cmd.Dir = buildDir
		buildOut, buildErr = cmd.CombinedOutput()
	})
	if buildErr != nil {
		t.Fatalf("build the package: %v\n%s", buildErr, buildOut)
	}
	return buildDir
}

// copyPackage copies the package's sources, leaving out what builds make.
func copyPackage(src, dst string) error {
	skip := map[string]bool{"node_modules": true, "dist": true, "build": true}
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if skip[strings.Split(rel, string(filepath.Separator))[0]] {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if strings.HasSuffix(p, ".go") || d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
}

// server is a toolgate serving a workspace holding a.txt, behind a proxy.
type server struct {
	ws      string
	tg      *conformance.Toolgate
	proxy   *cutProxy
	token   string
	control string
}

// startServer starts toolgate with config (nil for none) behind a proxy.
func startServer(t *testing.T, config any) *server {
	t.Helper()
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte(workspaceFile), 0o644); err != nil {
		t.Fatal(err)
	}
	var png bytes.Buffer // pixel.png, which read_file answers as an image
	if err := pngenc.Encode(&png, image.NewGray(image.Rect(0, 0, 1, 1))); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "pixel.png"), png.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	tg := conformance.StartToolgate(t, ws, config)
	u, err := url.Parse(tg.URL)
	if err != nil {
		t.Fatal(err)
	}
	p := startProxy(t, u.Host)
	return &server{ws: ws, tg: tg, proxy: p, token: tg.Token, control: controlServer(t, p)}
}

// post sends body as JSON straight to toolgate (not through the proxy)
// and decodes its 200 answer into out.
func (srv *server) post(path string, body, out any) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return srv.tg.Do(ctx, http.MethodPost, path, body, out, http.StatusOK)
}

// runNode runs node with args in dir against srv, failing the test with
// node's output when it fails; bounded by timeout.
func runNode(t *testing.T, dir string, srv *server, timeout time.Duration, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"TOOLGATE_URL="+srv.proxy.URL(),
		"TOOLGATE_DIRECT_URL="+srv.tg.URL,
		"TOOLGATE_TOKEN="+srv.token,
		"TOOLGATE_PROXY_CONTROL="+srv.control,
		"TOOLGATE_WORKSPACE="+srv.ws,
	)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("node %s: %v (deadline %s)\n%s", strings.Join(args, " "), err, timeout, out.String())
	}
	return out.String()
}

// TestNodeSuites runs the package's node:test files against a real
// toolgate: tools, messages in each SDK shape, errors, approvals,
// questions, cancel, interrupt, and events resumed across a cut.
func TestNodeSuites(t *testing.T) {
	dir := built(t)
	srv := startServer(t, nil)
	out := runNode(t, dir, srv, 3*time.Minute, "--test", "--test-timeout=60000", "--test-reporter=spec",
		"build/test/client.test.js", "build/test/events.test.js")
	t.Log(out)
}

// TestExampleAgentLoops runs the README's two example agent loops, one
// with @anthropic-ai/sdk and one with openai, each against a mock model
// server and a real toolgate.
func TestExampleAgentLoops(t *testing.T) {
	dir := built(t)
	srv := startServer(t, nil)
	out := runNode(t, dir, srv, 2*time.Minute, "--test", "--test-timeout=60000", "--test-reporter=spec", "build/test/examples.test.js")
	t.Log(out)
}

// TestVersionFollowsTheAPI: the package's major version is the HTTP API's
// (openapi.yaml info.version), and VERSION, which the client sends as its
// User-Agent, is package.json's version.
func TestVersionFollowsTheAPI(t *testing.T) {
	var pkg struct {
		Version string `json:"version"`
	}
	data, err := os.ReadFile("package.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &pkg); err != nil {
		t.Fatal(err)
	}
	spec, err := os.ReadFile("../../openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^  version: "?(\d+)"?$`).FindSubmatch(spec)
	if m == nil {
		t.Fatal("openapi.yaml has no info.version")
	}
	if major, _, _ := strings.Cut(pkg.Version, "."); major != string(m[1]) {
		t.Errorf("package.json version %s: major %s, want the API version %s", pkg.Version, major, m[1])
	}
	src, err := os.ReadFile("src/version.ts")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(src, []byte("'"+pkg.Version+"'")) {
		t.Errorf("src/version.ts does not say %s:\n%s", pkg.Version, src)
	}
}
