#!/usr/bin/env bash
# The peers benchmark: builds E2B's envd from the pinned snapshot in
# bench/peers/envd (its modules from the Go module proxy), toolgate and
# the load generator, then serves a 1 KB read and a `true` start to envd
# and to toolgate with its defaults, with --store memory and with the
# sandbox off, in turn, and prints each one's figures and ratios.
# Arguments go to the load generator (-rounds, -reads, -commands, -keep).
# It runs as root: envd sets the user and groups of each process it
# starts, as it does inside E2B's virtual machines.
#
#	bench/peers/run.sh
#	bench/peers/run.sh -rounds 20 -reads 400
set -euo pipefail
cd "$(dirname "$0")/../.."
bin="${TOOLGATE_PEERS_BIN:-${TMPDIR:-/tmp}/toolgate-peers-bin}"
mkdir -p "$bin"
# envd's own module, outside toolgate's: -mod=readonly checks its go.sum.
(cd bench/peers/envd/packages/envd && GOFLAGS=-mod=readonly CGO_ENABLED=0 go build -o "$bin/envd" .)
# toolgate-sandbox beside toolgate, as the Dockerfile and docs/sandbox.md
# install it: without it toolgate starts itself as the sandbox's helper,
# initialising all its packages in every sandbox. Built without cgo, as
# the Dockerfile builds it: a static helper starts with no dynamic loader,
# libc or cgo runtime (BenchmarkSequentialSandboxedTrue's cgo-helper).
go build -o "$bin/" ./cmd/toolgate
CGO_ENABLED=0 go build -o "$bin/" ./cmd/toolgate-sandbox
go build -o "$bin/peers" ./bench/peers
exec "$bin/peers" -envd "$bin/envd" -toolgate "$bin/toolgate" "$@"
