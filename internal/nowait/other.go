//go:build !linux

package nowait

import "net"

// Listener returns ln: only Linux's connections read and write raw.
func Listener(ln net.Listener) net.Listener { return ln }
