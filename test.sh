#!/usr/bin/env bash
# The whole test suite, on a fresh Debian machine: installs the real tools
# the tests use as oracles and peers, then runs every Go test with -race.
set -euo pipefail
cd "$(dirname "$0")"

# Debian packages: ripgrep (search oracle), prometheus (promtool), git
# (gitignore oracle), universal-ctags (code definitions), chromium (browser
# tests), curl (README examples), nodejs (the oracle for Cline's JavaScript
# list order), bubblewrap (the command sandbox), python3 (the sandbox escape
# suite).
need=()
for pair in rg:ripgrep promtool:prometheus git:git ctags:universal-ctags chromium:chromium curl:curl node:nodejs bwrap:bubblewrap python3:python3; do
  command -v "${pair%%:*}" >/dev/null 2>&1 || need+=("${pair#*:}")
done
if [ ${#need[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

go mod download
go vet ./...
CI="${CI:-1}" go test -race -count=1 -timeout 30m "$@" ./...
