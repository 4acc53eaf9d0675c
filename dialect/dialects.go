package dialect

import (
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/dialect/anthropic"
	"github.com/toolgate/toolgate/dialect/claudecode"
	"github.com/toolgate/toolgate/dialect/cline"
	"github.com/toolgate/toolgate/dialect/codex"
)

// All is every dialect toolgate speaks, the default (Cline's) first: the
// one list a new dialect is added to.
func All() []tool.Dialect {
	return []tool.Dialect{
		cline.Dialect(),
		claudecode.Dialect(),
		anthropic.Dialect(),
		codex.Dialect(),
	}
}
