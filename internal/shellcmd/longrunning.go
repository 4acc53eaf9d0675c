package shellcmd

import (
	"slices"
	"strings"
)

// longSub lists, per tool, the subcommands that install, build or test; an
// empty list means every invocation of the tool is long-running.
var longSub = map[string][]string{
	"npm":            {"install", "i", "ci", "test", "t", "build", "add", "update", "rebuild", "exec"},
	"pnpm":           {"install", "i", "ci", "test", "t", "build", "add", "update", "exec"},
	"yarn":           {"", "install", "test", "build", "add", "upgrade"},
	"bun":            {"install", "i", "test", "build", "add"},
	"go":             {"build", "test", "install", "generate", "run", "get", "mod"},
	"cargo":          {"build", "test", "run", "install", "check", "bench", "clippy", "fetch"},
	"make":           nil,
	"gmake":          nil,
	"ninja":          nil,
	"cmake":          nil,
	"pytest":         nil,
	"tox":            nil,
	"nox":            nil,
	"mvn":            nil,
	"mvnw":           nil,
	"gradle":         nil,
	"gradlew":        nil,
	"docker":         {"build", "compose", "buildx", "pull", "run"},
	"docker-compose": nil,
	"podman":         {"build", "pull", "run"},
	"pip":            {"install", "download", "wheel"},
	"pip3":           {"install", "download", "wheel"},
	"uv":             {"sync", "pip", "run"},
	"poetry":         {"install", "update", "build", "run"},
	"bundle":         {"", "install", "update", "exec"},
	"gem":            {"install"},
	"composer":       {"install", "update", "require"},
	"dotnet":         {"build", "test", "restore", "run", "publish"},
	"bazel":          {"build", "test", "run"},
	"jest":           nil,
	"vitest":         nil,
	"mocha":          nil,
	"tsc":            nil,
	"webpack":        nil,
	"rake":           nil,
	"mix":            {"test", "compile", "deps.get"},
	"apt-get":        {"install", "update", "upgrade"},
	"apt":            {"install", "update", "upgrade"},
}

// pythonModules are the `python -m X` modules that install or test.
var pythonModules = []string{"pytest", "unittest", "pip", "tox", "build"}

// LongRunning reports whether any command installs packages, builds or runs
// tests, so the caller can give it a longer timeout.
func (a Analysis) LongRunning() bool {
	for _, c := range a.Commands {
		if longRunning(c.Args) {
			return true
		}
	}
	return false
}

func longRunning(args []string) bool {
	name := commandName(args[0])
	sub := firstOperand(args[1:])
	switch {
	case name == "python" || name == "python3":
		i := slices.Index(args, "-m")
		return i > 0 && i+1 < len(args) && slices.Contains(pythonModules, args[i+1])
	case (name == "npm" || name == "pnpm" || name == "yarn" || name == "bun") && (sub == "run" || sub == "run-script"):
		script := firstOperand(args[slices.Index(args, sub)+1:])
		return runsBuildOrTest(script)
	case name == "yarn" || name == "pnpm":
		if runsBuildOrTest(sub) {
			return true // yarn test:unit runs a package script
		}
	}
	subs, ok := longSub[name]
	if !ok {
		return false
	}
	return subs == nil || slices.Contains(subs, sub)
}

// runsBuildOrTest reports whether a package script name looks like a build
// or test: build, test, test:unit, build-prod...
func runsBuildOrTest(script string) bool {
	for _, p := range []string{"build", "test", "install", "compile", "e2e"} {
		if strings.HasPrefix(script, p) {
			return true
		}
	}
	return false
}

// firstOperand returns the first word that is not an option, or "".
func firstOperand(args []string) string {
	for _, arg := range args {
		if !strings.HasPrefix(arg, "-") {
			return arg
		}
	}
	return ""
}
