package server

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// colourPixels counts the pixels of img within 40 of the colour on each
// channel: the chart's points and lines as the browser painted them.
func colourPixels(img image.Image, r, g, b uint8) int {
	near := func(a uint32, want uint8) bool { d := int(a>>8) - int(want); return d > -40 && d < 40 }
	n := 0
	bounds := img.Bounds()
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			if near(cr, r) && near(cg, g) && near(cb, b) {
				n++
			}
		}
	}
	return n
}

// TestBrowserConsoleCharts: after calls of two tools, one failing, the
// charts show a point per tool, the error chart puts the failing tool
// above zero, and the screenshot of the charts holds each tool's colour.
func TestBrowserConsoleCharts(t *testing.T) {
	env := newWebEnv(t, nil, map[string]string{"a.txt": "a\n"})
	other := createWebSession(t, env, `{"dialect":"claude_code"}`)
	consolePost(t, env, "default", false,
		toolUse("toolu_c1", "read_file", map[string]any{"path": "a.txt"}),
		toolUse("toolu_c2", "read_file", map[string]any{"path": "missing.txt"}),
		toolUse("toolu_c3", "list_files", map[string]any{"path": "."}))
	ctx := newBrowser(t, 60*time.Second)
	openConsole(t, ctx, env)

	point := func(chart, tool string) string { return `#` + chart + ` circle.point[data-tool="` + tool + `"]` }
	waitInPage(t, ctx, "the latency points", exists(point("chart-latency", "read_file"))+" && "+exists(point("chart-latency", "list_files")))
	waitInPage(t, ctx, "the error points", exists(point("chart-errors", "read_file"))+" && "+exists(point("chart-errors", "list_files")))
	// The plot's bottom is y = 150 (charts.js): zero errors sit on it. The
	// calls may fall into two minutes, so each tool may have two points.
	ys := func(tool string) []float64 {
		return evalAsync[[]float64](t, ctx, `[...document.querySelectorAll(`+strconv.Quote(point("chart-errors", tool))+`)].map(c => Number(c.getAttribute("cy")))`)
	}
	if got := ys("list_files"); len(got) == 0 || slices.ContainsFunc(got, func(y float64) bool { return y != 150 }) {
		t.Errorf("list_files' error points at y = %v, want all at 150 (no errors)", got)
	}
	if got := ys("read_file"); !slices.ContainsFunc(got, func(y float64) bool { return y < 150 }) {
		t.Errorf("read_file's error points at y = %v, want one above the zero line", got)
	}
	tips := evalAsync[string](t, ctx, `[...document.querySelectorAll(`+strconv.Quote(point("chart-errors", "read_file")+" title")+`)].map(e => e.textContent).join("|")`)
	if !regexp.MustCompile(`1 of [12] not succeeded`).MatchString(tips) {
		t.Errorf("read_file's error tips = %q, want its failed call counted", tips)
	}
	if got := evalAsync[string](t, ctx, `[...document.querySelectorAll("#chart-legend li")].map(li => li.textContent).join(",")`); got != "list_files,read_file" {
		t.Errorf("legend = %q", got)
	}

	t.Run("the screenshots show both tools' points", func(t *testing.T) {
		// One tool at a time: two tools of about the same latency draw
		// their points over each other.
		only := `(tool) => { for (const e of document.querySelectorAll("svg.chart [data-tool]")) {
			if (e.dataset.tool === tool) e.removeAttribute("visibility"); else e.setAttribute("visibility", "hidden"); } return true }`
		defer evalAsync[bool](t, ctx, `(document.querySelectorAll("svg.chart [data-tool]").forEach(e => e.removeAttribute("visibility")), true)`)
		for _, c := range []struct {
			tool    string
			r, g, b uint8 // the palette's first two colours, in the tools' sorted order
		}{{"list_files", 0x2f, 0x6f, 0xde}, {"read_file", 0xd9, 0x48, 0x0f}} {
			evalAsync[bool](t, ctx, `(`+only+`)(`+strconv.Quote(c.tool)+`)`)
			for _, chart := range []string{"chart-latency", "chart-errors"} {
				shot, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.ID(chart)))
				if err != nil {
					t.Fatal(err)
				}
				img, err := png.Decode(bytes.NewReader(shot))
				if err != nil {
					t.Fatal(err)
				}
				// A point is a disc of radius 4 (some 50 pixels).
				if n := colourPixels(img, c.r, c.g, c.b); n < 25 {
					t.Errorf("%s: %s's colour covers %d pixels of the screenshot, want its point drawn", chart, c.tool, n)
				}
			}
		}
	})

	// The screenshot of the README and docs/console.md: two sessions, one
	// with a write waiting in the inbox, the charts, the events.
	if *updateScreenshot {
		do(t, ctx, "watch the other session", chromedp.Click(chromedp.CSS(`#sessions tr[data-session="`+other+`"] input.watch`)))
		consolePost(t, env, other, false, toolUse("toolu_c4", "Grep", map[string]any{"pattern": "a"}))
		consolePost(t, env, "default", true, toolUse("toolu_c5", "write_to_file", map[string]any{"path": "notes.txt", "content": "written from the console\n"}))
		waitInPage(t, ctx, "the inbox entry", exists(inboxCardSel("default", "toolu_c5")+" .approval button.approve"))
		waitInPage(t, ctx, "the other session's call", exists(`#timeline li[data-id="toolu_c4"].succeeded`))
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("..", "docs", "console.png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
