package mcpcontent

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/internal/mcphub"
	"github.com/toolgate/toolgate/internal/testbuild"
	"github.com/toolgate/toolgate/internal/testwait"
)

// TestBlocksOfHubResults maps what the test MCP server answers through a
// real hub: media contents and images the Messages API refuses.
func TestBlocksOfHubResults(t *testing.T) {
	h := mcphub.New(mcphub.Settings{MCPServers: map[string]mcphub.ServerConfig{
		"test": {Command: testbuild.Binary(t, testbuild.MCPTestServer), Timeout: 1},
	}}, mcphub.Options{MinBackoff: 20 * time.Millisecond, MaxBackoff: 200 * time.Millisecond})
	h.Start(context.Background())
	t.Cleanup(h.Close)
	testwait.Until(t, 15*time.Second, "the test MCP server to connect", func() bool {
		s := h.Servers()
		return len(s) > 0 && s[0].State == mcphub.Connected
	})
	ctx := context.Background()

	t.Run("media contents", func(t *testing.T) {
		res, err := h.CallTool(ctx, "test", "media", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		b := Blocks(res)
		if len(b) != 3 || b[0].Type != api.TypeImage || b[0].Source.MediaType != "image/png" ||
			!strings.Contains(b[1].Text, "audio/wav") || b[2].Text != "inline" {
			t.Errorf("media blocks = %+v, want image, audio note, resource text", b)
		}
	})
	t.Run("images the Messages API refuses", func(t *testing.T) {
		res, err := h.CallTool(ctx, "test", "images", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		b := Blocks(res)
		if len(b) != 4 {
			t.Fatalf("blocks = %+v, want 4", b)
		}
		assertMessageTypes(t, b)
		if b[0].Type != api.TypeImage || b[0].Source.MediaType != "image/png" {
			t.Errorf("bmp block = %+v, want a PNG image", b[0])
		} else if img := decodePNG(t, b[0].Source.Data); img.Bounds().Dx() != 3 || img.Bounds().Dy() != 2 {
			t.Errorf("converted bmp is %v, want 3x2", img.Bounds())
		}
		if b[1].Type != api.TypeText || !strings.Contains(b[1].Text, "<svg") {
			t.Errorf("svg block = %+v, want its source as text", b[1])
		}
		if b[2].Type != api.TypeText || !strings.Contains(b[2].Text, "image/x-icon") {
			t.Errorf("ico block = %+v, want a note naming the type", b[2])
		}
		if b[3].Type != api.TypeImage || b[3].Source.MediaType != "image/png" {
			t.Errorf("mislabelled png = %+v, want image/png", b[3])
		}
	})
}
