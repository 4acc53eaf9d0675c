#!/usr/bin/env bash
# The whole test suite, on a fresh Debian machine: installs the real tools
# the tests use as oracles and peers, then runs every Go test with -race.
set -euo pipefail
cd "$(dirname "$0")"

# Debian packages: ripgrep (search oracle), prometheus (promtool), git
# (gitignore oracle), universal-ctags (code definitions), chromium (browser
# tests), curl (README and docs/ examples), nodejs (the oracle for Cline's JavaScript
# list order), bubblewrap (the command sandbox), python3 (the sandbox escape
# suite), npm (the generated TypeScript client check).
need=()
for pair in rg:ripgrep promtool:prometheus git:git ctags:universal-ctags chromium:chromium curl:curl node:nodejs bwrap:bubblewrap python3:python3 npm:npm; do
  command -v "${pair%%:*}" >/dev/null 2>&1 || need+=("${pair#*:}")
done
# Debian's python3 modules the Python client (clients/python) is built and
# tested with, by Debian's interpreter: httpx (its one dependency), pytest
# and pytest-timeout, mypy (its annotations are checked strictly), and
# build, setuptools and wheel for its sdist and wheel, built offline.
for pair in httpx:python3-httpx pytest:python3-pytest pytest_timeout:python3-pytest-timeout mypy:python3-mypy build:python3-build setuptools:python3-setuptools wheel:python3-wheel; do
  /usr/bin/python3 -c "import ${pair%%:*}" >/dev/null 2>&1 || need+=("${pair#*:}")
done
if [ ${#need[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

go mod download
go vet ./...
# The module builds on other systems too, where the sandbox is unavailable
# (the *_other.go files stand in for the Linux-only system calls); vet
# compiles its tests there as well (Linux-only tests are *_linux_test.go).
GOOS=darwin go vet ./...

# Static checks: staticcheck with no findings, and no function that only
# tests reach (deadcode lists what main cannot reach; .deadcode-allow names
# the few kept on purpose). Each tool is installed at its pinned version
# when missing.
gobin="$(go env GOPATH)/bin"
install_go_tool() { # name module/path version
  if ! go version -m "$gobin/$1" 2>/dev/null | grep -q "mod.*$3"; then
    go install "$2@$3"
  fi
}
install_go_tool staticcheck honnef.co/go/tools/cmd/staticcheck v0.8.2
install_go_tool deadcode golang.org/x/tools/cmd/deadcode v0.52.0
"$gobin/staticcheck" ./...
# deadcode exits non-zero only when it cannot analyse the module, which
# stops the script. An allowed line must equal deadcode's
# "unreachable func: NAME" whole, so it never hides another function whose
# name merely contains NAME; a "package DIR" line allows every function of
# that one directory (a package only tests import).
deadout="$("$gobin/deadcode" ./...)"
dead="$(printf '%s\n' "$deadout" | awk 'NR == FNR { if ($0 ~ /^package /) pkg[$2] = 1; else if ($0 !~ /^#/ && NF) allow[$0] = 1; next }
  NF { s = $0; sub(/^[^ ]+ /, "", s); dir = $1; sub(/\/[^\/]*$/, "", dir); if (!(s in allow) && !(dir in pkg)) print }' .deadcode-allow -)"
if [ -n "$dead" ]; then
  echo "functions that only tests call (remove them, move them into a _test.go file, or list them in .deadcode-allow):" >&2
  echo "$dead" >&2
  exit 1
fi
# Generated clients: types generated from openapi.yaml by openapi-typescript
# must let clients/typescript/tool_call.ts, which builds a tool call from an
# @anthropic-ai/sdk Message and hands toolgate's answer back as the SDK's
# MessageParam and ToolResultBlockParam, pass tsc --strict with no error.
# The npm packages go into a scratch directory, installed when missing.
# @modelcontextprotocol/sdk is the TypeScript MCP client that
# server/mcp_typescript_test.go drives against /mcp (TOOLGATE_NODE_MODULES).
# openai and @openai/agents are the OpenAI SDKs whose helpers'
# messages and strict-schema checks server/openai_sdk_test.go runs.
ts_dir="${TOOLGATE_TS_DIR:-${TMPDIR:-/tmp}/toolgate-ts-check}"
ts_pkgs=(openapi-typescript@7.13.0 typescript@5.9.3 @anthropic-ai/sdk@1.14.0 @modelcontextprotocol/sdk@1.32.2 openai@7.59.0 @openai/agents@0.20.0)
mkdir -p "$ts_dir"
if [ "$(cat "$ts_dir/.installed" 2>/dev/null)" != "${ts_pkgs[*]}" ]; then
  (cd "$ts_dir" && npm install --no-audit --no-fund --silent --no-save "${ts_pkgs[@]}")
  echo "${ts_pkgs[*]}" > "$ts_dir/.installed"
fi
"$ts_dir/node_modules/.bin/openapi-typescript" openapi.yaml -o "$ts_dir/toolgate.d.ts" --silent
cp clients/typescript/tool_call.ts "$ts_dir/tool_call.ts"
(cd "$ts_dir" && node_modules/.bin/tsc --strict --noEmit --module nodenext --moduleResolution nodenext \
  --target es2022 --skipLibCheck tool_call.ts)

export TOOLGATE_NODE_MODULES="$ts_dir/node_modules"
# The TypeScript client package (clients/typescript, @toolgate/client):
# its pinned dev dependencies (package.json's devDependencies, the one
# list) in a scratch directory, installed when missing. The Go tests in
# clients/typescript build it with them (TOOLGATE_TS_CLIENT_MODULES) and
# run its node:test suites, example agent loops and chromium page against
# a real toolgate. `npm pack` (which builds first) must make the package,
# from a copy of the package beside openapi.yaml, its types' source.
tsc_dir="${TOOLGATE_TS_CLIENT_DIR:-${TMPDIR:-/tmp}/toolgate-ts-client}"
read -r -a tsc_pkgs <<< "$(node -e 'const d = require("./clients/typescript/package.json").devDependencies;
  console.log(Object.entries(d).map(([k, v]) => k + "@" + v).join(" "))')"
mkdir -p "$tsc_dir"
if [ "$(cat "$tsc_dir/.installed" 2>/dev/null)" != "${tsc_pkgs[*]}" ]; then
  (cd "$tsc_dir" && npm install --no-audit --no-fund --silent --no-save "${tsc_pkgs[@]}")
  echo "${tsc_pkgs[*]}" > "$tsc_dir/.installed"
fi
export TOOLGATE_TS_CLIENT_MODULES="$tsc_dir/node_modules"
pack_dir="$tsc_dir/pack"
rm -rf "$pack_dir" && mkdir -p "$pack_dir/clients"
tar -C clients --exclude=node_modules --exclude=dist --exclude=build --exclude='*.tgz' -cf - typescript | tar -C "$pack_dir/clients" -xf -
cp openapi.yaml "$pack_dir/"
ln -s "$tsc_dir/node_modules" "$pack_dir/clients/typescript/node_modules"
tarball="$(cd "$pack_dir/clients/typescript" && npm pack --silent --pack-destination "$pack_dir" | tail -n 1)"
packed="$(tar -tzf "$pack_dir/$tarball")"
for f in package/dist/index.js package/dist/index.d.ts package/dist/toolgate.browser.js package/README.md; do
  grep -qx "$f" <<< "$packed" || { echo "npm pack: $tarball lacks $f" >&2; exit 1; }
done
# The packed package, installed into an empty project, imports by its name.
mkdir -p "$pack_dir/smoke" && echo '{"private": true, "type": "module"}' > "$pack_dir/smoke/package.json"
(cd "$pack_dir/smoke" && npm install --no-audit --no-fund --silent "$pack_dir/$tarball" &&
  node -e 'import("@toolgate/client").then((m) => { if (typeof m.Client !== "function") throw new Error("no Client export"); })')
echo "npm pack: $pack_dir/$tarball"
# The libraries Cline reads documents with (pdf-parse for PDF, mammoth for
# .docx), run under node as oracles for read_file's document text
# (handlers TestDocumentTextMatchesClineLibraries), in a scratch directory,
# installed when missing.
js_dir="${TOOLGATE_JS_ORACLES_DIR:-${TMPDIR:-/tmp}/toolgate-js-oracles}"
js_pkgs=(pdf-parse@1.1.1 mammoth@1.11.0)
mkdir -p "$js_dir"
if [ "$(cat "$js_dir/.installed" 2>/dev/null)" != "${js_pkgs[*]}" ]; then
  (cd "$js_dir" && npm install --no-audit --no-fund --silent --no-save "${js_pkgs[@]}")
  echo "${js_pkgs[*]}" > "$js_dir/.installed"
fi
export TOOLGATE_JS_ORACLES="$js_dir/node_modules"
# The reference MCP filesystem server (Node) that BenchmarkReadVsFilesystemMCP
# (cmd/toolgate) reads against, in the scratch directory the benchmark looks
# in (TOOLGATE_MCP_FS_DIR), installed when missing.
fs_dir="${TOOLGATE_MCP_FS_DIR:-${TMPDIR:-/tmp}/toolgate-mcp-fs}"
fs_pkgs=(@modelcontextprotocol/server-filesystem@2026.8.31)
mkdir -p "$fs_dir"
if [ "$(cat "$fs_dir/.installed" 2>/dev/null)" != "${fs_pkgs[*]}" ]; then
  (cd "$fs_dir" && npm install --no-audit --no-fund --silent --no-save "${fs_pkgs[@]}")
  echo "${fs_pkgs[*]}" > "$fs_dir/.installed"
fi
export TOOLGATE_MCP_FS_DIR="$fs_dir"
# The Codex CLI (its native binary comes in @openai/codex-linux-x64) that
# internal/conformance/codex runs against a mock Responses API and
# measures toolgate against (TOOLGATE_CODEX_DIR), installed when missing.
codex_dir="${TOOLGATE_CODEX_INSTALL_DIR:-${TMPDIR:-/tmp}/toolgate-codex}"
codex_pkgs=(@openai/codex@0.169.0)
mkdir -p "$codex_dir"
if [ "$(cat "$codex_dir/.installed" 2>/dev/null)" != "${codex_pkgs[*]}" ]; then
  (cd "$codex_dir" && npm install --no-audit --no-fund --silent --no-save "${codex_pkgs[@]}")
  echo "${codex_pkgs[*]}" > "$codex_dir/.installed"
fi
export TOOLGATE_CODEX_DIR="$codex_dir/node_modules"
# The real Claude Code CLI, the oracle of the claude_code dialect
# (internal/conformance/claudecode runs it against a mock model): the
# pinned release, whose native binary comes in the registry package
# @anthropic-ai/claude-code-linux-x64, so nothing else is downloaded; in a
# scratch directory (TOOLGATE_CLAUDE_CODE_DIR), installed when missing.
cc_dir="${TOOLGATE_CLAUDE_CODE_DIR:-${TMPDIR:-/tmp}/toolgate-claude-code}"
cc_pkgs=(@anthropic-ai/claude-code@2.1.197)
mkdir -p "$cc_dir"
if [ "$(cat "$cc_dir/.installed" 2>/dev/null)" != "${cc_pkgs[*]}" ]; then
  (cd "$cc_dir" && npm install --no-audit --no-fund --silent --no-save "${cc_pkgs[@]}")
  echo "${cc_pkgs[*]}" > "$cc_dir/.installed"
fi
export TOOLGATE_CLAUDE_CODE_DIR="$cc_dir"

# The real Cline CLI, the oracle of the cline dialect's conformance
# harness (internal/conformance/cline, TOOLGATE_CLINE_DIR): cline@2.18.0
# is built on the extension's own code (core 3.82.0); cline@3.x is another
# agent, not this oracle. In a scratch directory, installed when missing.
cline_dir="${TOOLGATE_CLINE_DIR:-${TMPDIR:-/tmp}/toolgate-cline}"
cline_pkgs=(cline@2.18.0)
mkdir -p "$cline_dir"
if [ "$(cat "$cline_dir/.installed" 2>/dev/null)" != "${cline_pkgs[*]}" ]; then
  (cd "$cline_dir" && npm install --no-audit --no-fund --silent --no-save "${cline_pkgs[@]}")
  echo "${cline_pkgs[*]}" > "$cline_dir/.installed"
fi
export TOOLGATE_CLINE_DIR="$cline_dir"

# Postman's own OpenAPI converter and its collection runner: the contract
# is converted as Postman imports it and run with newman against a live
# server (cmd/toolgate TestPostmanCollectionRuns, TOOLGATE_POSTMAN_DIR),
# in a scratch directory, installed when missing.
pm_dir="${TOOLGATE_POSTMAN_DIR:-${TMPDIR:-/tmp}/toolgate-postman}"
pm_pkgs=(openapi-to-postmanv2@6.3.3 newman@6.2.2)
mkdir -p "$pm_dir"
if [ "$(cat "$pm_dir/.installed" 2>/dev/null)" != "${pm_pkgs[*]}" ]; then
  (cd "$pm_dir" && npm install --no-audit --no-fund --silent --no-save "${pm_pkgs[@]}")
  echo "${pm_pkgs[*]}" > "$pm_dir/.installed"
fi
export TOOLGATE_POSTMAN_DIR="$pm_dir"

# The conformance harnesses append their headline figures here (a passing
# test's log shows only with -v); they are printed after the run. A file
# of this run's own: a harness run by hand meanwhile writes elsewhere.
figures="$(mktemp "${TMPDIR:-/tmp}/toolgate-conformance-figures.XXXXXX")"
export TOOLGATE_CONFORMANCE_FIGURES="$figures"
CI="${CI:-1}" go test -race -count=1 -timeout 30m "$@" ./...
if [ -s "$figures" ]; then
  echo "conformance with the real clients:"
  sed 's/^/  /' "$figures"
fi
rm -f "$figures"
# The benchmarks that defend code kept only for speed (docs/benchmarks.md),
# one iteration each, so that they keep compiling and running; their
# figures come from the commands in docs/benchmarks.md's Figures table.
go test -run '^$' -benchtime 1x -bench 'ToolUseVsBare|ReadVsFilesystemMCP|ManySessionsMemory|DatabaseMasks|LogBuffer|RequestLineHandler' ./cmd/toolgate/
go test -run '^$' -benchtime 1x -bench 'MCPThroughToolgate|EventFanOut|CommandChunkLatency|Front|EncodeBuffers|DecodeBody|EncodeAnswer|RequestLogLine|RequestMetrics|AnswerFirst|AppendJSONString|RouteNames|AnswerHeaders' ./server/
go test -run '^$' -benchtime 1x -bench 'SchedulerOverhead|IgnoredMasks|InputScans|ToolMetrics|ResultJSONSize|CallRuntime|LoopGuardRepeat|ReadRecordFill|DroppedIDs|RecordStage|ReadPolicy|DebugCheck|CallContext|ExecuteRead|CallEnd|CallDone|ContentRoom|DecidedByAllowAll' ./coordinator/
go test -run '^$' -benchtime 1x -bench 'SubjectOf|EditDeniedPaths|HardLinkCacheEdit|DenialRootsOnce|CoversNoRule' ./coordinator/policy/
go test -run '^$' -benchtime 1x -bench 'StampWatch' ./coordinator/policy/
go test -run '^$' -benchtime 1x -bench 'AppendFull|AppendCall' ./coordinator/eventlog/
go test -run '^$' -benchtime 1x -bench 'ChildEnv' ./coordinator/tool/
go test -run '^$' -benchtime 1x -bench 'AppendString' ./internal/jsonplain/
go test -run '^$' -benchtime 1x -bench 'NowaitConn' ./internal/nowait/
go test -run '^$' -benchtime 1x -bench 'Call|YieldToInput' ./internal/procs/
go test -run '^$' -benchtime 1x -bench 'With' ./internal/logattrs/
go test -run '^$' -benchtime 1x -bench 'AnalyzeRemembered' ./internal/shellcmd/
go test -run '^$' -benchtime 1x -bench 'RunTrueVsBash|LookPathRemembered|ReadBuffers' ./internal/process/
go test -run '^$' -benchtime 1x -bench 'SandboxedTrue|ResolveCandidates|CheckMounts|PortsNetlink|LimitEvents|StartedAheadMountCheck' ./internal/sandbox/...
go test -run '^$' -benchtime 1x -bench 'CallRecord|SyncedCommit|DirectCommit|CheckpointTail' ./internal/store/
go test -run '^$' -benchtime 1x -bench 'ReadFileRecord|CopyBuffers|ReadPipeline|OpenRegular|ReadWhole|ExecuteCommandLogin|CloseAfterAnswer' ./handlers/
go test -run '^$' -benchtime 1x -bench 'SearchGoTree|SearchBuffers|ExactPairScan' ./handlers/search/
# The peers benchmark (docs/benchmarks.md) builds E2B's envd from its
# pinned snapshot, its modules from the Go module proxy, and takes a few
# minutes: with TOOLGATE_PEERS=1 it runs here, one short round.
if [ -n "${TOOLGATE_PEERS:-}" ]; then
  bench/peers/run.sh -rounds 1 -reads 20 -commands 5
fi
