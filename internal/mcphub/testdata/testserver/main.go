// Command testserver is a small MCP server for the hub's tests. It serves
// over stdio, over streamable HTTP with -http, or over the SSE transport
// with -sse (printing its URL).
//
// Tools: echo (read-only), slow (progress, then waits to be cancelled;
// -cancelled names a file it writes when that happens), fail (isError),
// media (image, audio and resource contents), parts (several texts, a
// resource, audio and an image; isError or no content when asked), images (BMP, SVG, ICO and a
// mislabelled PNG), crash (exits the process),
// grow (adds a tool, which sends list_changed), readfile and writefile
// (what a server may touch, for the sandbox's tests). Resource: mem://hello.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"image"
	"image/png"
	"log"
	"net"
	"net/http"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/image/bmp"
)

type echoIn struct {
	Text string `json:"text"`
}

type slowIn struct {
	Steps int `json:"steps"`
}

type empty struct{}

type fileIn struct {
	Path string `json:"path"`
	Text string `json:"text,omitempty"`
}

func main() {
	httpAddr := flag.String("http", "", "serve streamable HTTP on this address instead of stdio")
	sseAddr := flag.String("sse", "", "serve the SSE transport (2024-11-05) on this address instead of stdio")
	cancelled := flag.String("cancelled", "", "file written when a slow call is cancelled")
	failStart := flag.String("fail-start", "", "write this to stderr and exit with code 3 instead of serving")
	flag.Parse()
	if *failStart != "" {
		fmt.Fprintln(os.Stderr, "starting testserver")
		fmt.Fprintln(os.Stderr, *failStart)
		os.Exit(3)
	}
	srv := newServer(*cancelled)
	if *sseAddr != "" {
		serveHTTP(*sseAddr, "/sse", mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return srv }, nil))
		return
	}
	if *httpAddr == "" {
		if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			log.Print(err)
		}
		return
	}
	serveHTTP(*httpAddr, "/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
}

// serveHTTP listens on addr and prints the endpoint's URL for the test.
func serveHTTP(addr, path string, h http.Handler) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("http://%s%s\n", ln.Addr(), path)
	log.Fatal(http.Serve(ln, h))
}

// partsIn is the parts tool's input.
type partsIn struct {
	Error bool `json:"error,omitempty"`
	None  bool `json:"none,omitempty"`
}

func newServer(cancelled string) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "testserver", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "Echo text back.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo: " + in.Text}}}, nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "traceparent", Description: "Answer the traceparent the request's _meta carried.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			tp, _ := req.Params.Meta["traceparent"].(string)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "traceparent: " + tp}}}, nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "slow", Description: "Report progress, then wait until cancelled."},
		func(ctx context.Context, req *mcp.CallToolRequest, in slowIn) (*mcp.CallToolResult, any, error) {
			for i := range in.Steps {
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
					ProgressToken: req.Params.GetProgressToken(), Progress: float64(i + 1), Total: float64(in.Steps),
					Message: fmt.Sprintf("step %d", i+1),
				})
			}
			<-ctx.Done()
			if cancelled != "" {
				_ = os.WriteFile(cancelled, []byte("cancelled"), 0o644)
			}
			return nil, nil, ctx.Err()
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "fail", Description: "Always fails."},
		func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
			return nil, nil, fmt.Errorf("it broke")
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "media", Description: "Return one of each content kind."},
		func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.ImageContent{MIMEType: "image/png", Data: tinyPNG()},
				&mcp.AudioContent{MIMEType: "audio/wav", Data: []byte("wav")},
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "mem://r", MIMEType: "text/plain", Text: "inline"}},
			}}, nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "parts", Description: "Return several parts; isError when asked; nothing when none is set."},
		func(_ context.Context, _ *mcp.CallToolRequest, in partsIn) (*mcp.CallToolResult, any, error) {
			if in.None {
				return &mcp.CallToolResult{Content: []mcp.Content{}, IsError: in.Error}, nil, nil
			}
			return &mcp.CallToolResult{IsError: in.Error, Content: []mcp.Content{
				&mcp.TextContent{Text: "first"},
				&mcp.TextContent{Text: ""},
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "mem://r", MIMEType: "text/plain", Text: "a <b> & c", Blob: nil}},
				&mcp.AudioContent{MIMEType: "audio/wav", Data: []byte("wav")},
				&mcp.TextContent{Text: "second"},
				&mcp.ImageContent{MIMEType: "image/png", Data: tinyPNG()},
			}}, nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "images", Description: "Return images the Messages API does not take: BMP, SVG, ICO."},
		func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
			var b bytes.Buffer
			_ = bmp.Encode(&b, image.NewRGBA(image.Rect(0, 0, 3, 2)))
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.ImageContent{MIMEType: "image/bmp", Data: b.Bytes()},
				&mcp.ImageContent{MIMEType: "image/svg+xml", Data: []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><rect width="4" height="4"/></svg>`)},
				&mcp.ImageContent{MIMEType: "image/x-icon", Data: []byte("\x00\x00\x01\x00\x01\x00")},
				&mcp.ImageContent{MIMEType: "image/jpeg", Data: tinyPNG()}, // mislabelled
			}}, nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "crash", Description: "Exit the server process."},
		func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
			os.Exit(3)
			return nil, nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "grow", Description: "Add the tool late."},
		func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
			mcp.AddTool(srv, &mcp.Tool{Name: "late", Description: "Added at run time."},
				func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "late"}}}, nil, nil
				})
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "grown"}}}, nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "readfile", Description: "Answer a file's contents, or the error reading it."},
		func(_ context.Context, _ *mcp.CallToolRequest, in fileIn) (*mcp.CallToolResult, any, error) {
			data, err := os.ReadFile(in.Path)
			if err != nil {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "error: " + err.Error()}}}, nil, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "read: " + string(data)}}}, nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "writefile", Description: "Write text to a file, answering the error if any."},
		func(_ context.Context, _ *mcp.CallToolRequest, in fileIn) (*mcp.CallToolResult, any, error) {
			if err := os.WriteFile(in.Path, []byte(in.Text), 0o644); err != nil {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "error: " + err.Error()}}}, nil, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "wrote"}}}, nil, nil
		})
	srv.AddResource(&mcp.Resource{URI: "mem://hello", Name: "hello", MIMEType: "text/plain"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "mem://hello", MIMEType: "text/plain", Text: "hello resource"}}}, nil
		})
	return srv
}

// tinyPNG is a real 1x1 PNG.
func tinyPNG() []byte {
	var b bytes.Buffer
	_ = png.Encode(&b, image.NewRGBA(image.Rect(0, 0, 1, 1)))
	return b.Bytes()
}
