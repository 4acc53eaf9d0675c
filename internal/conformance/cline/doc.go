// Package cline is the conformance harness of toolgate's cline dialect:
// it runs the pinned Cline CLI (npm cline@2.18.0, built on the
// extension's own code) against a scripted mock model on loopback, runs
// the same calls through a real `toolgate serve` process over HTTP on an
// identical copy of a generated workspace, and compares the two sets of
// tool results byte for byte after a few stated normalisations, and the
// workspaces afterwards.
//
// It imports no layer of toolgate: toolgate is a process built by
// internal/testbuild, reached over HTTP only. The helpers here (mock
// model, workspace, process runners) are this harness's own; shared
// pieces for other dialects' harnesses live in internal/conformance.
package cline
