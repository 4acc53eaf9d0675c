// Package python holds the tests of the Python client (src/toolgate)
// against a real toolgate: the Python sources beside this file are the
// package; this file builds its sdist and wheel, starts `toolgate serve`
// and runs the package's pytest suite on the built wheel.
package python

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/toolgate/toolgate/internal/conformance"
)

// python is Debian's interpreter, the one test.sh installs httpx and pytest
// for (a python3 earlier on PATH may be another installation without them).
const python = "/usr/bin/python3"

// requirePython skips the test, or fails it in CI, when the interpreter
// or the packages the suite needs are missing.
func requirePython(t *testing.T) {
	t.Helper()
	err := exec.CommandContext(t.Context(), python, "-c", "import httpx, pytest, pytest_timeout, build").Run()
	if err == nil {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("%s with httpx, pytest, pytest-timeout and build is required in CI (test.sh installs them): %v", python, err)
	}
	t.Skipf("%s with httpx, pytest, pytest-timeout and build is not installed: %v", python, err)
}

// TestPythonClient builds the package, then runs its test suite against a
// real toolgate with the wheel's contents as the only copy of the package
// on the path.
func TestPythonClient(t *testing.T) {
	t.Parallel()
	requirePython(t)
	wheel, sdist := buildPackage(t)
	t.Run("sdist", func(t *testing.T) { checkSdist(t, sdist) })
	site := unpackWheel(t, wheel)

	workspace := t.TempDir()
	tg := conformance.StartToolgate(t, workspace, nil)
	token := tg.Token

	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	env := append(os.Environ(), "PYTHONPATH="+site, "PYTHONDONTWRITEBYTECODE=1",
		"TOOLGATE_TEST_URL="+tg.URL, "TOOLGATE_TEST_TOKEN="+token, "TOOLGATE_TEST_WORKSPACE="+workspace)

	where, err := pythonCmd(ctx, env, "-c", "import toolgate; print(toolgate.__file__)").Output()
	if err != nil || !strings.HasPrefix(string(where), site) {
		t.Fatalf("toolgate imported from %q (%v), want the unpacked wheel in %s", where, err, site)
	}
	out, err := pythonCmd(ctx, env, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rs", "tests").CombinedOutput()
	t.Logf("pytest:\n%s", out)
	if err != nil {
		t.Fatalf("pytest failed: %v", err)
	}
	if strings.Contains(string(out), "skipped") {
		t.Errorf("pytest skipped tests; every test must run against the server")
	}
}

// TestErrorCodesMatchContract: the client maps every request-level error
// code openapi.yaml lists (Error.code) to an exception class, and no other.
func TestErrorCodesMatchContract(t *testing.T) {
	t.Parallel()
	requirePython(t)
	doc, err := openapi3.NewLoader().LoadFromFile("../../openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, v := range doc.Components.Schemas["Error"].Value.Properties["code"].Value.Enum {
		want = append(want, v.(string))
	}
	out, err := pythonCmd(t.Context(), append(os.Environ(), "PYTHONPATH=src", "PYTHONDONTWRITEBYTECODE=1"), "-c",
		"import json, toolgate.errors as e; print(json.dumps(sorted(e.ERROR_CLASSES)))").Output()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("toolgate.errors.ERROR_CLASSES has codes\n%v\nopenapi.yaml Error.code lists\n%v", got, want)
	}
}

// TestPythonTypes: the package, its example and its tests pass mypy
// --strict (the package ships py.typed, so its users' checkers read these
// annotations).
func TestPythonTypes(t *testing.T) {
	t.Parallel()
	if err := exec.CommandContext(t.Context(), python, "-c", "import mypy").Run(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("mypy for %s is required in CI (test.sh installs python3-mypy): %v", python, err)
		}
		t.Skipf("mypy for %s is not installed: %v", python, err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	env := append(os.Environ(), "MYPYPATH=src:tests", "PYTHONDONTWRITEBYTECODE=1")
	cmd := pythonCmd(ctx, env, "-m", "mypy", "--cache-dir", t.TempDir(), "--strict", "src/toolgate", "examples", "tests")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("mypy --strict: %v\n%s", err, out)
	}
}

func pythonCmd(ctx context.Context, env []string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, python, args...)
	cmd.Env = env
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// buildPackage builds the sdist and, from it, the wheel with Debian's
// build and setuptools, offline (--no-isolation), from a copy of the
// sources so that nothing is written into the tree.
func buildPackage(t *testing.T) (wheel, sdist string) {
	t.Helper()
	src := filepath.Join(t.TempDir(), "toolgate-python")
	if err := os.CopyFS(src, os.DirFS(".")); err != nil {
		t.Fatal(err)
	}
	dist := t.TempDir()
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	out, err := pythonCmd(ctx, append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1"), "-m", "build", "--no-isolation", "--outdir", dist, src).CombinedOutput()
	if err != nil {
		t.Fatalf("python3 -m build: %v\n%s", err, out)
	}
	wheels, _ := filepath.Glob(filepath.Join(dist, "toolgate-*-py3-none-any.whl"))
	sdists, _ := filepath.Glob(filepath.Join(dist, "toolgate-*.tar.gz"))
	if len(wheels) != 1 || len(sdists) != 1 {
		t.Fatalf("build made wheels %v and sdists %v, want one of each\n%s", wheels, sdists, out)
	}
	return wheels[0], sdists[0]
}

// unpackWheel extracts the wheel (a zip) into a directory that works as a
// site-packages, after checking it holds the typed package, nothing that
// is not in src/, and declares its one dependency.
func unpackWheel(t *testing.T, wheel string) string {
	t.Helper()
	zr, err := zip.OpenReader(wheel)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	site := t.TempDir()
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
		if strings.HasSuffix(f.Name, "/METADATA") {
			meta := readZip(t, f)
			// setuptools spells it "httpx>=0.23" or, before 67, "httpx (>=0.23)".
			if !strings.Contains(strings.NewReplacer(" (", "", ")", "").Replace(meta), "Requires-Dist: httpx>=0.23") {
				t.Errorf("wheel METADATA does not require httpx:\n%s", meta)
			}
		}
		dst := filepath.Join(site, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, []byte(readZip(t, f)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range []string{"toolgate/__init__.py", "toolgate/py.typed", "toolgate/events.py", "toolgate/async_client.py"} {
		if !slices.Contains(names, want) {
			t.Errorf("wheel lacks %s; it holds %v", want, names)
		}
	}
	for _, name := range names {
		if _, err := os.Stat(filepath.Join("src", filepath.FromSlash(name))); strings.HasPrefix(name, "toolgate/") && err != nil {
			t.Errorf("wheel holds %s, which is not in src/", name)
		}
	}
	return site
}

func readZip(t *testing.T, f *zip.File) string {
	t.Helper()
	rc, err := f.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// checkSdist: the source archive holds what a build from it needs.
func checkSdist(t *testing.T, sdist string) {
	f, err := os.Open(sdist)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		// Names start with the archive's top directory, toolgate-VERSION/.
		if _, rest, ok := strings.Cut(h.Name, "/"); ok && h.Typeflag != tar.TypeDir {
			names = append(names, rest)
		}
	}
	for _, want := range []string{"pyproject.toml", "README.md", "src/toolgate/py.typed", "src/toolgate/client.py"} {
		if !slices.Contains(names, want) {
			t.Errorf("sdist lacks %s; it holds %v", want, names)
		}
	}
}
