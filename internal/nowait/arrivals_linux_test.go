package nowait

import (
	"net"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/testwait"
)

// TestArrivalsReportEachArrivalOnce: a connection waiting to be
// accepted, then bytes on the accepted one, are each reported once;
// nothing new reports nothing.
func TestArrivalsReportEachArrivalOnce(t *testing.T) {
	a := NewArrivals()
	if a == nil {
		t.Fatal("no epoll instance")
	}
	defer a.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	wl := Listener(ln, a)
	if a.Arrived() {
		t.Fatal("Arrived before anything came")
	}
	peer, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer peer.Close()
	testwait.Until(t, 10*time.Second, "the connection reported", a.Arrived)
	if a.Arrived() {
		t.Fatal("the connection reported twice")
	}
	c, err := wl.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if a.Arrived() {
		t.Fatal("Arrived after the accept, before any byte")
	}
	for range 2 { // read or not, each arrival once
		if _, err := peer.Write([]byte("x")); err != nil {
			t.Fatal(err)
		}
		testwait.Until(t, 10*time.Second, "the byte reported", a.Arrived)
		if a.Arrived() {
			t.Fatal("the byte reported twice")
		}
	}
	var nothing *Arrivals
	nothing.Watch(c)
	if nothing.Arrived() {
		t.Fatal("a nil Arrivals reported")
	}
}
