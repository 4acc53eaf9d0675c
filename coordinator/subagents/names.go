package subagents

import (
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/toolgate/toolgate/coordinator/tool"
)

// subagentToolNameMax is the longest tool name providers accept.
const subagentToolNameMax = 64

// ToolName is the tool name Cline gives an agent
// (core/task/tools/subagent/SubagentToolName.ts, buildSubagentToolName):
// "use_subagent_" and the name lower-cased, every run of characters other
// than a-z, 0-9 and _ made one "_", outer "_" trimmed ("Code Reviewer" ->
// use_subagent_code_reviewer); a name too long for 64 characters is cut
// and ends with "_" and six characters of its FNV-1a hash.
func ToolName(agent string) string {
	sanitized := sanitizeAgentName(agent)
	if sanitized == "" {
		sanitized = "agent"
	}
	base := tool.SubagentPrefix + sanitized
	if len(base) <= subagentToolNameMax {
		return base
	}
	hash := fnvHash36(agent)
	if len(hash) > 6 {
		hash = hash[:6]
	}
	body := sanitized[:max(1, subagentToolNameMax-len(tool.SubagentPrefix)-len(hash)-1)]
	name := tool.SubagentPrefix + body + "_" + hash
	if len(name) > subagentToolNameMax {
		name = name[:subagentToolNameMax]
	}
	return name
}

func sanitizeAgentName(name string) string {
	var b strings.Builder
	under := false
	for _, r := range strings.ToLower(strings.TrimSpace(name)) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' {
			if r == '_' {
				if under {
					continue
				}
				under = true
			} else {
				under = false
			}
			b.WriteRune(r)
			continue
		}
		if !under {
			b.WriteByte('_')
			under = true
		}
	}
	return strings.Trim(b.String(), "_")
}

// fnvHash36 is Cline's hashString: 32-bit FNV-1a over the UTF-16 code
// units of s, in base 36.
func fnvHash36(s string) string {
	h := uint32(2166136261)
	for _, u := range utf16.Encode([]rune(s)) {
		h ^= uint32(u)
		h *= 16777619
	}
	return strconv.FormatUint(uint64(h), 36)
}
