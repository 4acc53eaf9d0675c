package mcphub

import (
	"crypto/sha256"
	"math/big"
)

// UID is a server's short key in Cline's MCP tool names,
// "<key>0mcp0<tool>" (Cline's McpHub gives each server "c" and five random
// characters). Here it is derived from the name, so it stays the same
// across restarts and for every client: "c" and five base-36 characters of
// the name's SHA-256. It never contains "0mcp0".
func UID(name string) string {
	sum := sha256.Sum256([]byte(name))
	digits := new(big.Int).SetBytes(sum[:8]).Text(36)
	for len(digits) < 5 {
		digits = "0" + digits
	}
	return "c" + digits[:5]
}

// ServerByKey finds the server a Cline MCP tool name's key names: the
// server's name or its UID.
func (h *Hub) ServerByKey(key string) (string, bool) {
	if h == nil {
		return "", false
	}
	if _, ok := h.servers[key]; ok {
		return key, true
	}
	for _, name := range h.names {
		if UID(name) == key {
			return name, true
		}
	}
	return "", false
}
