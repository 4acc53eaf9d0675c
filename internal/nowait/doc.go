// Package nowait makes the system calls that cannot block without
// telling Go's scheduler: a non-blocking socket's reads and writes, an
// open whose every path component is already cached, a read of data
// already in the page cache.
//
// Why: the runtime's monitor thread (sysmon) goes to sleep when every
// processor is idle, and the next system call made the ordinary way
// (syscall.Syscall: entersyscall) wakes it with a futex; woken so, it
// then polls every 20 µs for as long as any goroutine runs. A server
// answering one caller at a time is idle between requests, so every
// request paid a wake on its path and two to three more context
// switches: for a 1 KB read_file, 3.3-3.7 context switches a call
// against 1.3-1.4 with its socket and file calls made here, and a p50
// 13-31 µs lower (BenchmarkNowaitConn, ./internal/nowait/;
// docs/benchmarks.md). A raw system call (syscall.RawSyscall) is not
// seen by the scheduler: it keeps its processor for the call's length,
// which is why only calls that cannot wait are made so. Every call here
// that would wait (EAGAIN), or that the kernel or file system cannot
// make without waiting, is left to its caller's ordinary path.
package nowait
