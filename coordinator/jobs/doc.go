// Package jobs keeps a session's background jobs: commands a call
// starts on purpose to outlive it (a dev server, a watcher): everything
// else a call starts dies with the call. A job belongs to its session: it
// is listed there, its output can be read while it runs, it can be
// killed, and it ends with the session. It runs in the same sandbox as
// any command. Handlers reach a session's jobs through the tool
// contract's Jobs and Job interfaces (Call.StartJob, Call.Job), which
// Table and Job implement; the coordinator keeps a Table per session.
//
// The package imports api, the tool contract and internal/ only
// (imports_test.go: seamImports).
package jobs
