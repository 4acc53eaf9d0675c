package helper

import (
	"encoding/json"
	"fmt"
	"os"
	"syscall"
	"testing"

	"github.com/toolgate/toolgate/internal/benchpair"
)

// BenchmarkReceiveRequest receives a command as toolgate hands it to a
// sandbox started ahead (`bash -c true`, an environment of 40 variables,
// three standard streams) in the helper's inbox, made once (newInbox),
// beside a buffer of the same size made for each message, as before.
//
//	go test -run '^$' -bench ReceiveRequest -benchtime 2000x ./internal/sandbox/helper/
func BenchmarkReceiveRequest(b *testing.B) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer syscall.Close(fds[0])
	defer syscall.Close(fds[1])
	null, err := os.Open(os.DevNull)
	if err != nil {
		b.Fatal(err)
	}
	defer null.Close()
	req := Request{Argv: []string{"bash", "-c", "true"}, Dir: "/work", Reuse: true}
	for i := range 40 {
		req.Env = append(req.Env, fmt.Sprintf("VARIABLE_%d=/usr/local/some/value/of/forty/bytes/%d", i, i))
	}
	msg, err := json.Marshal(req)
	if err != nil {
		b.Fatal(err)
	}
	rights := syscall.UnixRights(int(null.Fd()), int(null.Fd()), int(null.Fd()))
	spec := Spec{Control: fds[1]}
	one := func(inbox []byte) {
		if err := syscall.Sendmsg(fds[0], msg, rights, nil, 0); err != nil {
			b.Fatal(err)
		}
		_, got, err := receive(spec, commandMessage, inbox)
		if err != nil {
			b.Fatal(err)
		}
		for _, fd := range got {
			_ = syscall.Close(fd)
		}
	}
	inbox := newInbox()
	benchpair.Run(b, func() { one(inbox) }, func() { one(newInbox()) })
}
