// Package eventlog is a session's bounded window of recent events: the
// one place events are kept, from which every stream reads. It owns the
// window (a ring bounded by count and by bytes), replay from a cursor
// (Read, ReadMessage, Cursor, WaitFor), the fan-out to readers (a channel
// closed at the next append a reader cares about, per message or for
// all) and the events' shared JSON encoding.
//
// Appending never blocks and never waits for a reader. The package
// imports api only: the coordinator appends to a session's Log, the server
// streams it as server-sent events.
package eventlog
