package mcphub

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
)

// maxNameLen is the longest tool name model APIs accept.
const maxNameLen = 64

// maxServerLen bounds the server part so the tool part keeps some room.
const maxServerLen = 24

var (
	invalidChars = regexp.MustCompile(`[^a-zA-Z0-9_-]`)
	underscores  = regexp.MustCompile(`_{2,}`)
)

// shortHash tells apart names that were cut to the same prefix.
func shortHash(parts ...string) string {
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(sum[:])[:8]
}

// cleanServer makes a server name safe to list. It never contains "__"
// nor starts or ends with "_", so the first "__" after the prefix of a
// listed name always ends the server part.
func cleanServer(name string) string {
	s := underscores.ReplaceAllString(invalidChars.ReplaceAllString(name, "_"), "_")
	s = strings.Trim(s, "_")
	if s == "" {
		return "s-" + shortHash(name)
	}
	if len(s) > maxServerLen {
		s = strings.TrimRight(s[:maxServerLen-9], "_") + "-" + shortHash(name)
	}
	return s
}

// ListedName is the name under which a server's tool is offered to
// models: mcp__<server>__<tool>, cleaned to [a-zA-Z0-9_-] and at most 64
// characters, with a short hash suffix when cut.
func ListedName(server, tool string) string {
	return "mcp__" + cleanServer(server) + "__" + cleanTool(server, tool)
}

// cleanTool is the tool part of a listed name.
func cleanTool(server, tool string) string {
	t := invalidChars.ReplaceAllString(tool, "_")
	room := maxNameLen - len("mcp__") - len(cleanServer(server)) - len("__")
	if strings.Trim(t, "_") == "" {
		return "t-" + shortHash(server, tool)
	}
	if len(t) > room {
		t = t[:room-9] + "-" + shortHash(server, tool)
	}
	return t
}

// ListedParts are the server and tool parts of ListedName, the names
// permission rules use. Cleaning is idempotent, so parts already cleaned
// come back unchanged.
func ListedParts(server, tool string) (string, string) {
	return cleanServer(server), cleanTool(server, tool)
}
