// Package testproc finds the processes a test started, from outside, so
// that tests can check nothing outlives its call; only tests import it.
package testproc
