// Package launch starts a built toolgate (or a program that announces
// itself the same way) as a process of its own, waits until it says
// where it listens, stops it, and reads what it costs from /proc (CPU
// time, resident memory). Tests, benchmarks and the bench/peers command
// share it, each setting its flags, environment, config and log through
// Options instead of keeping a copy of the start-up code; building the
// binary stays with internal/testbuild (tests) or the caller's flags
// (bench/peers). It imports no layer.
package launch
