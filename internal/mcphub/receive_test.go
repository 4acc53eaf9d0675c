package mcphub

import (
	"testing"

	"github.com/toolgate/toolgate/internal/testwait"
)

// The package's bounded waits (internal/testwait).
func receive[T any](t testing.TB, ch <-chan T) T { t.Helper(); return testwait.Receive(t, ch) }
