package eventlog

import "github.com/toolgate/toolgate/api"

// eventOverhead stands for an event's fixed fields (ids, type, time, the
// call record) in its size.
const eventOverhead = 256

// eventSize is about how many bytes an event holds: the fixed part plus
// its variable text (output chunks, results, previews, questions). It
// need not be exact, only grow with what the event keeps alive.
func eventSize(ev *api.Event) int {
	n := eventOverhead + len(ev.Chunk)
	if ev.Result != nil {
		n += ResultSize(ev.Result)
	}
	if ev.Response != nil {
		for i := range ev.Response.Message.Content {
			n += ResultSize(&ev.Response.Message.Content[i])
		}
	}
	if ev.Preview != nil {
		n += previewSize(ev.Preview)
	}
	if ev.Approval != nil {
		n += len(ev.Approval.Reason) + previewSize(&ev.Approval.Preview)
	}
	if ev.Block != nil {
		n += len(ev.Block.Input)
	}
	if ev.Input != nil {
		n += len(ev.Input.Text) + len(ev.Input.Command)
		for _, o := range ev.Input.Options {
			n += len(o)
		}
	}
	return n
}

// ResultSize is about how many bytes a tool result holds: its texts and
// its images' data. Sessions bound the results they keep by it too.
func ResultSize(r *api.ToolResult) int {
	n := 0
	for _, c := range r.Content {
		n += len(c.Text)
		if c.Source != nil {
			n += len(c.Source.Data)
		}
	}
	return n
}

func previewSize(p *api.Preview) int {
	n := len(p.Command) + len(p.Diff) + len(p.Error) + len(p.Input)
	for _, s := range p.Paths {
		n += len(s)
	}
	for _, part := range p.Parts {
		for _, a := range part.Args {
			n += len(a)
		}
	}
	return n
}
