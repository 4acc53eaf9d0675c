// Package mcphub keeps toolgate's connections to the MCP servers named in
// a settings file (Cline's format): it connects in the background,
// reconnects with backoff when a server dies, follows each server's tool
// list and forwards calls, progress and cancellation.
package mcphub
