//go:build !linux

package nowait

import "net"

// Listener returns ln: only Linux's connections read and write raw.
func Listener(ln net.Listener, _ *Arrivals) net.Listener { return ln }

// Arrivals watches nothing outside Linux: Arrived never reports.
type Arrivals struct{}

// NewArrivals is nil outside Linux.
func NewArrivals() *Arrivals { return nil }

// Arrived reports false.
func (*Arrivals) Arrived() bool { return false }

// Watch does nothing.
func (*Arrivals) Watch(any) {}

// Close does nothing.
func (*Arrivals) Close() {}
