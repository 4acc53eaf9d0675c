// Package testbuild builds the programs tests run as real processes (the
// MCP test server, toolgate itself) once per test binary, so that a
// package's tests share one build, and finds the reference filesystem MCP
// server test.sh installs; only tests import it.
package testbuild
