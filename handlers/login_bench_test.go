package handlers

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// BenchmarkExecuteCommandLogin runs `true` through the whole coordinator
// (the default config and its sandbox, one session), alternating round
// by round with login and without, HOME a directory with no profile of
// its own (/etc/profile alone is read). It reports the wall time per
// command of each side and their ratio: what login costs a command once
// the session has its login environment (the first login command, which
// captures it, is outside the timing).
//
//	go test -run '^$' -bench ExecuteCommandLogin -benchtime 200x ./handlers/
func BenchmarkExecuteCommandLogin(b *testing.B) {
	s := newLoginSetup(b, tool.CommandConfig{}, "")
	coord, sess := s.coord, s.sess
	n := 0
	run := func(login bool) time.Duration {
		n++
		input := `{"command":"true","requires_approval":false,"login":` + strconv.FormatBool(login) + `}`
		start := time.Now()
		_, rec := coord.Execute(context.Background(), sess, "", api.ToolUse{Type: api.TypeToolUse, ID: "toolu_" + strconv.Itoa(n), Name: "execute_command", Input: []byte(input)})
		took := time.Since(start)
		if rec.Status != api.StatusSucceeded {
			b.Fatalf("login %v: %s", login, rec.Status)
		}
		return took
	}
	run(true) // the session's login environment
	run(false)
	var withLogin, without time.Duration
	b.ResetTimer()
	for range b.N {
		withLogin += run(true)
		without += run(false)
	}
	b.StopTimer()
	b.ReportMetric(float64(withLogin.Microseconds())/float64(b.N)/1e3, "login_ms/cmd")
	b.ReportMetric(float64(without.Microseconds())/float64(b.N)/1e3, "plain_ms/cmd")
	b.ReportMetric(float64(withLogin)/float64(without), "ratio")
}
