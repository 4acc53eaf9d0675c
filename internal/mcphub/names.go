package mcphub

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// maxNameLen is the longest tool name model APIs accept.
const maxNameLen = 64

// maxServerLen bounds the server part so the tool part keeps some room.
const maxServerLen = 24

// validChar reports whether r may appear in a listed name.
func validChar(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-'
}

// replaceInvalid turns every character outside [a-zA-Z0-9_-] into "_",
// one for each rune (and for each byte that is not valid UTF-8). Names
// are cleaned on every call's policy check, so a name that is already
// clean comes back as it is, without a copy.
func replaceInvalid(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return !validChar(r) }) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if validChar(r) {
			return r
		}
		return '_'
	}, s)
}

// collapseUnderscores turns each run of underscores into one.
func collapseUnderscores(s string) string {
	if !strings.Contains(s, "__") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '_' && i > 0 && s[i-1] == '_' {
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// shortHash tells apart names that were cut to the same prefix.
func shortHash(parts ...string) string {
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(sum[:])[:8]
}

// cleanServer makes a server name safe to list. It never contains "__"
// nor starts or ends with "_", so the first "__" after the prefix of a
// listed name always ends the server part.
func cleanServer(name string) string {
	s := collapseUnderscores(replaceInvalid(name))
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
	t := replaceInvalid(tool)
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
