// Command peers measures toolgate against a real tool server, E2B's envd
// built from the snapshot in envd/, side by side on loopback: one
// sequential caller, a fresh tool_use id per call, the servers served in
// turn round after round so that other load on the machine falls on each
// alike. Each server answers a read of a 1 KB file and the start of a
// `true` process; the report gives each one's median and 90th-percentile
// latency (from sending the request to the answer's last byte; the
// answer is decoded and checked after the timing, for every server), the CPU time its process spends per call (its own, and with
// the children it reaped, read from /proc), and toolgate's ratios to the
// peer; then, for the read, the median of each phase of a call as the
// client sees it (writing the request, waiting for the first byte,
// reading the rest: phases.go). run.sh builds both and runs it;
// docs/benchmarks.md shows figures.
//
//	bench/peers/run.sh [-rounds 10] [-reads 200] [-commands 40]
package main
