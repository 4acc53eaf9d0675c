package server

import (
	"net/http"
	"testing"

	"github.com/toolgate/toolgate/api"
)

func countFixture(t *testing.T) *testServer {
	f := newFixture(t, fixtureOptions{files: map[string]string{"a.txt": "hello\nworld\n"}, server: Config{Token: testToken}})
	return &testServer{Server: f.ts, coord: f.coord, reg: f.reg}
}

func TestCountNothing(t *testing.T) { countFixture(t) }

func TestCountReadFile(t *testing.T) {
	s := countFixture(t)
	got := decodeBody[api.ToolUseResponse](t, s.do(t, "POST", "/v1/tool_use",
		toolUse("toolu_rf1", "read_file", map[string]any{"path": "a.txt"})), http.StatusOK)
	if got.Call.Status != api.StatusSucceeded {
		t.Fatalf("read_file: %+v %+v", got.Call, got.Result)
	}
}
