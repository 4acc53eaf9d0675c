// Package testwait bounds the waits of tests: a regression fails in seconds
// instead of hanging until the test binary's timeout. It owns the one
// deadline every package's test helpers receive and waitAll use; only tests
// import it.
package testwait
