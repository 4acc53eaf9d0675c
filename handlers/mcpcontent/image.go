package mcpcontent

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/png"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/toolgate/toolgate/api"
	"golang.org/x/image/bmp"
	"golang.org/x/image/tiff"
)

// The Messages API, and the Anthropic SDKs' types for it, take image
// blocks of these media types only; any other is refused with the whole
// request, so no other type is ever passed on.
var messageImageTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// maxSVGText bounds the SVG source given to the model instead of an image.
const maxSVGText = 64 << 10

// imageBlock maps image data from an MCP server to a block the Messages
// API takes. The bytes decide, not the declared type (servers mislabel):
// PNG, JPEG, GIF and WebP pass as they are; BMP and TIFF are converted to
// PNG; SVG, which is text, is given as its source; anything else becomes a
// note saying what was left out.
func imageBlock(declared string, data []byte) api.Content {
	declared = strings.ToLower(strings.TrimSpace(strings.Split(declared, ";")[0]))
	sniffed := http.DetectContentType(data)
	switch {
	case messageImageTypes[sniffed]:
		return base64Image(sniffed, data)
	case sniffed == "image/bmp" || declared == "image/bmp" || declared == "image/x-ms-bmp" || declared == "image/tiff" || isTIFF(data):
		b, err := toPNG(data)
		if err != nil {
			return api.TextContent(fmt.Sprintf("[image: %s, %d bytes; it could not be converted to PNG: %v]", declared, len(data), err))
		}
		return base64Image("image/png", b)
	case declared == "image/svg+xml" || strings.HasPrefix(sniffed, "text/") && bytes.Contains(data[:min(len(data), 1024)], []byte("<svg")):
		return svgNote(data)
	}
	return api.TextContent(fmt.Sprintf("[image: %s, %d bytes; not passed on: only PNG, JPEG, GIF and WebP images can be]", declared, len(data)))
}

func base64Image(mediaType string, data []byte) api.Content {
	return api.Content{Type: api.TypeImage, Source: &api.ImageSource{
		Type: "base64", MediaType: mediaType, Data: base64.StdEncoding.EncodeToString(data),
	}}
}

// toPNG decodes a BMP or TIFF image and encodes it as PNG.
func toPNG(data []byte) ([]byte, error) {
	var img image.Image
	var err error
	if isTIFF(data) {
		img, err = tiff.Decode(bytes.NewReader(data))
	} else {
		img, err = bmp.Decode(bytes.NewReader(data))
	}
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := png.Encode(&out, img); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

func isTIFF(data []byte) bool {
	return bytes.HasPrefix(data, []byte("II*\x00")) || bytes.HasPrefix(data, []byte("MM\x00*"))
}

// svgNote gives an SVG image as its source: a model reads the markup,
// and no rasterizer is needed.
func svgNote(data []byte) api.Content {
	if !utf8.Valid(data) {
		return api.TextContent(fmt.Sprintf("[image: image/svg+xml, %d bytes, not valid UTF-8; not passed on]", len(data)))
	}
	src, more := string(data), ""
	if len(src) > maxSVGText {
		src, more = strings.ToValidUTF8(src[:maxSVGText], ""), fmt.Sprintf(" (first %d of %d bytes)", maxSVGText, len(data))
	}
	return api.TextContent(fmt.Sprintf("[image: image/svg+xml, given as its SVG source%s]\n%s", more, src))
}
