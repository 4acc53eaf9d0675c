package tool

import (
	"os"
	"testing"

	"github.com/toolgate/toolgate/internal/benchpair"
)

// BenchmarkChildEnv measures ChildEnv while its inputs stay the same (the
// last result kept in lastChildEnv, compared and copied) against building
// the environment afresh, as each command would without it.
func BenchmarkChildEnv(b *testing.B) {
	c := &CommandConfig{Env: map[string]string{"CI": "1"}}
	c.ChildEnv()
	benchpair.Run(b, func() { c.ChildEnv() }, func() { c.childEnv(os.Environ(), nil) })
}
