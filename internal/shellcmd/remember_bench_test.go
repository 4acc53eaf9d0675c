package shellcmd

import (
	"testing"

	"github.com/toolgate/toolgate/internal/benchpair"
)

// BenchmarkAnalyzeRemembered measures Analyze of a command line analysed
// before (the analyses cache: looked up and copied) against parsing it
// again. A call's command is analysed by the scheduler, the policy and
// the handler, and agents repeat their commands.
func BenchmarkAnalyzeRemembered(b *testing.B) {
	const line = `cd web && npm test -- --watch=false 2>&1 | tail -n 50`
	Analyze(line)
	benchpair.Run(b, func() { Analyze(line) }, func() { analyze(line) })
}
