package mcpcontent

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgate/toolgate/api"
	"golang.org/x/image/bmp"
	"golang.org/x/image/tiff"
)

// assertMessageTypes fails the test if a block is an image of a media type
// the Messages API refuses. The allowed set is the SDK's own:
// @anthropic-ai/sdk src/resources/messages/messages.ts, Base64ImageSource
// media_type 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp'.
func assertMessageTypes(t *testing.T, blocks []api.Content) {
	t.Helper()
	for i, b := range blocks {
		if b.Type != api.TypeImage {
			continue
		}
		switch b.Source.MediaType {
		case "image/png", "image/jpeg", "image/gif", "image/webp":
		default:
			t.Errorf("block %d is an image of type %q, which the Messages API refuses", i, b.Source.MediaType)
		}
	}
}

func decodePNG(t *testing.T, b64 string) image.Image {
	t.Helper()
	data, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	return img
}

func TestImageBlock(t *testing.T) {
	src := image.NewRGBA(image.Rect(0, 0, 5, 4))
	src.Set(1, 1, color.RGBA{R: 255, A: 255})
	enc := func(f func(*bytes.Buffer) error) []byte {
		var b bytes.Buffer
		if err := f(&b); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	pngData := enc(func(b *bytes.Buffer) error { return png.Encode(b, src) })
	cases := []struct {
		name, mime string
		data       []byte
		wantImage  string // media type, or "" for a text note
		wantText   string
	}{
		{"png", "image/png", pngData, "image/png", ""},
		{"jpeg", "image/jpeg", enc(func(b *bytes.Buffer) error { return jpeg.Encode(b, src, nil) }), "image/jpeg", ""},
		{"gif", "image/gif", enc(func(b *bytes.Buffer) error { return gif.Encode(b, src, nil) }), "image/gif", ""},
		{"png labelled jpeg", "image/jpeg", pngData, "image/png", ""},
		{"bmp", "image/bmp", enc(func(b *bytes.Buffer) error { return bmp.Encode(b, src) }), "image/png", ""},
		{"bmp labelled png", "image/png", enc(func(b *bytes.Buffer) error { return bmp.Encode(b, src) }), "image/png", ""},
		{"tiff", "image/tiff", enc(func(b *bytes.Buffer) error { return tiff.Encode(b, src, nil) }), "image/png", ""},
		{"broken bmp", "image/bmp", []byte("BMnope"), "", "could not be converted"},
		{"svg", "image/svg+xml", []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`), "", "<svg"},
		{"svg with charset", "image/svg+xml; charset=utf-8", []byte(`<?xml version="1.0"?><svg/>`), "", "<svg"},
		{"huge svg", "image/svg+xml", []byte("<svg>" + strings.Repeat("x", 2*maxSVGText) + "</svg>"), "", "first 65536 of"},
		{"avif", "image/avif", []byte("\x00\x00\x00\x1cftypavif"), "", "image/avif"},
		{"ico", "image/x-icon", []byte("\x00\x00\x01\x00\x01\x00"), "", "image/x-icon"},
		{"text labelled png", "image/png", []byte("not an image"), "", "image/png"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := Blocks(&mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{MIMEType: c.mime, Data: c.data}}})
			assertMessageTypes(t, b)
			if c.wantImage != "" {
				if b[0].Type != api.TypeImage || b[0].Source.MediaType != c.wantImage {
					t.Fatalf("block = %+v, want an image of type %s", b[0], c.wantImage)
				}
				if c.wantImage == "image/png" {
					if img := decodePNG(t, b[0].Source.Data); img.Bounds() != src.Bounds() {
						t.Errorf("PNG bounds %v, want %v", img.Bounds(), src.Bounds())
					}
				}
				return
			}
			if b[0].Type != api.TypeText || !strings.Contains(b[0].Text, c.wantText) {
				t.Errorf("block = %.200v, want a text note containing %q", b[0], c.wantText)
			}
		})
	}
	t.Run("resource blob", func(t *testing.T) {
		b := ResourceBlock(&mcp.ResourceContents{URI: "x://a.bmp", MIMEType: "image/bmp", Blob: enc(func(b *bytes.Buffer) error { return bmp.Encode(b, src) })})
		if b.Type != api.TypeImage || b.Source.MediaType != "image/png" {
			t.Errorf("bmp resource = %+v, want a PNG image", b)
		}
	})
}
