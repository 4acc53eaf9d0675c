package main

import (
	"net"
	"testing"
)

func TestSelfURL(t *testing.T) {
	for _, c := range []struct {
		addr net.Addr
		want string
	}{
		{&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 7420}, "http://127.0.0.1:7420"},
		{&net.TCPAddr{IP: net.IPv4zero, Port: 80}, "http://127.0.0.1:80"},
		{&net.TCPAddr{IP: net.IPv6unspecified, Port: 9}, "http://[::1]:9"},
		{&net.TCPAddr{IP: net.ParseIP("10.1.2.3"), Port: 1}, "http://10.1.2.3:1"},
	} {
		if got := selfURL(c.addr); got != c.want {
			t.Errorf("selfURL(%v) = %s, want %s", c.addr, got, c.want)
		}
	}
}
