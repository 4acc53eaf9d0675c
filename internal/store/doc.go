// Package store keeps what toolgate must not forget across a restart:
// sessions (mode, dialect, rules), calls (input, decision, status, the
// result's size and, where the coordinator hands it over, a bounded
// result), calls awaiting approval, and the prior contents edits
// left for reverts. It is also the audit log: every call, queried newest
// first.
//
// Store is the interface; Open returns the embedded SQLite implementation
// (modernc.org/sqlite, WAL mode, versioned migrations) and NewMemory one
// that keeps nothing across restarts. The package imports no toolgate
// layer: its records hold plain strings and JSON bytes, and the
// coordinator maps its own types onto them.
package store
