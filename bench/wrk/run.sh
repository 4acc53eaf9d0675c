#!/usr/bin/env bash
# Throughput with wrk at 16 connections: toolgate with its defaults
# (SQLite store, request log at info, to a file) and the bare net/http
# handler of BenchmarkToolUseVsBare (decode the block, read the file,
# encode the answer), each its own process, serving read_file of a 1 KB
# file with a fresh tool_use id per request, in alternating rounds.
# Prints each round's requests per second, the servers' CPU per request
# and the ratio. Needs wrk (Debian package wrk). With BASELINE set to
# another toolgate binary (an earlier commit's), it runs that one too,
# with its defaults, for before and after in one run.
#
#	bench/wrk/run.sh [rounds] [seconds per round]
#	BASELINE=/tmp/toolgate-old bench/wrk/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds="${1:-3}" secs="${2:-5}"
command -v wrk >/dev/null || { echo "needs wrk (apt-get install wrk)" >&2; exit 1; }
tmp="$(mktemp -d)"
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$tmp"' EXIT
go build -o "$tmp/toolgate" ./cmd/toolgate
go test -c -o "$tmp/bench.test" ./cmd/toolgate
mkdir -p "$tmp/ws"
for _ in $(seq 64); do printf '0123456789abcde\n'; done > "$tmp/ws/one_kb.txt"
export TOKEN=wrk-bench-token
# start NAME COMMAND...: runs a server, waits for its address.
start() {
  local name="$1"; shift
  "$@" > "$tmp/$name.out" 2> "$tmp/$name.log" &
  pids+=("$!")
  eval "${name}_pid=$!"
  for _ in $(seq 300); do
    if url="$(sed -n 's/^toolgate listening on //p' "$tmp/$name.out")" && [ -n "$url" ]; then
      eval "${name}_url=$url"; return
    fi
    sleep 0.1
  done
  echo "$name did not start: $(cat "$tmp/$name.log")" >&2; exit 1
}
TOOLGATE_TOKEN="$TOKEN" XDG_STATE_HOME="$tmp/state" start toolgate "$tmp/toolgate" serve --addr 127.0.0.1:0 --workspace "$tmp/ws"
TOOLGATE_BENCH_CHILD="$(printf 'bare\037%s' "$tmp/ws")" start bare "$tmp/bench.test"
sides=(toolgate bare)
if [ -n "${BASELINE:-}" ]; then
  TOOLGATE_TOKEN="$TOKEN" XDG_STATE_HOME="$tmp/state-baseline" start baseline "$BASELINE" serve --addr 127.0.0.1:0 --workspace "$tmp/ws"
  sides+=(baseline)
fi
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
hz="$(getconf CLK_TCK)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$rounds"); do
  for side in "${sides[@]}"; do
    eval "url=\$${side}_url pid=\$${side}_pid"
    t0="$(ticks "$pid")"
    out="$(wrk -t2 -c16 -d"${secs}s" -s bench/wrk/tool_use.lua "$url")"
    t1="$(ticks "$pid")"
    rps="$(awk '/^Requests\/sec/ {print $2}' <<<"$out")"
    n="$(awk '/requests in/ {print $1}' <<<"$out")"
    errs="$(awk '/Non-2xx/ {print $NF}' <<<"$out")"
    [ -z "$errs" ] || { echo "$side answered $errs non-2xx responses" >&2; exit 1; }
    eval "${side}_rps=$rps"
    printf 'round %d %-8s %9.0f req/s  %6.1f µs server CPU/request\n' "$r" "$side" "$rps" \
      "$(awk -v t=$((t1 - t0)) -v hz="$hz" -v n="$n" 'BEGIN {print t / hz * 1e6 / n}')"
  done
  awk -v a="$toolgate_rps" -v b="$bare_rps" 'BEGIN {printf "round ratio %.2f\n", a / b}'
  [ -z "${BASELINE:-}" ] || awk -v a="$baseline_rps" -v b="$bare_rps" 'BEGIN {printf "round baseline ratio %.2f\n", a / b}'
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
