package handlers

import (
	"context"
	"reflect"
	"testing"

	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// TestWebDefaultsAreTheConfigDefaults: the network settings a tool gets
// from a registry built without them are the ones a coordinator with the
// default config hands its tools, so the defaults cannot drift apart.
func TestWebDefaultsAreTheConfigDefaults(t *testing.T) {
	ws, err := tool.OpenWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	var got *tool.Web
	capture := tool.Registration{Name: "capture_env", Factory: func(name string, env tool.Env) *tool.Tool {
		got = env.Web
		return tool.NewTool(tool.Spec[struct{}]{Name: name, Run: func(context.Context, *tool.Call, *struct{}) (tool.Result, error) {
			return tool.Result{}, nil
		}})
	}}
	c := coordinator.New(coordinator.Options{Workspace: ws, Config: coordinator.DefaultConfig(), Tools: []tool.Registration{capture}})
	t.Cleanup(c.Close)
	if got == nil {
		t.Fatal("the coordinator gave its tools no network settings")
	}
	if want := webEnv(tool.Env{}); !reflect.DeepEqual(*got, want) {
		t.Errorf("default config gives tools %+v; a registry without settings gives %+v", *got, want)
	}
}
