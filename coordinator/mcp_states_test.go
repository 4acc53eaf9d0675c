package coordinator

import (
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/internal/mcphub"
)

// TestMCPStatesAreTheWire: the hub names its servers' states itself
// (it imports no layer) and MCPServers passes them on unchanged, so each
// must be the wire's word.
func TestMCPStatesAreTheWire(t *testing.T) {
	for hub, wire := range map[string]string{mcphub.Connecting: api.MCPConnecting, mcphub.Connected: api.MCPConnected,
		mcphub.Disconnected: api.MCPDisconnected, mcphub.Disabled: api.MCPDisabled} {
		if hub != wire {
			t.Errorf("the hub's state %q is %q on the wire", hub, wire)
		}
	}
}
