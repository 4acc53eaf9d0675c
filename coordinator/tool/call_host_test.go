package tool

import (
	"context"
	"errors"
	"io"
	"slices"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/internal/sandbox"
)

// hostLog is a Host that notes each request it answers.
type hostLog struct{ got []string }

func (h *hostLog) Output(stream, chunk string) { h.got = append(h.got, "output "+stream+" "+chunk) }
func (h *hostLog) Keep(KeptOutput)             { h.got = append(h.got, "keep") }
func (h *hostLog) Await(context.Context, api.InputRequest) (api.AnswerRequest, error) {
	h.got = append(h.got, "await")
	return api.AnswerRequest{}, nil
}
func (h *hostLog) Confine(dir string) (*sandbox.Sandbox, sandbox.Run, error) {
	h.got = append(h.got, "confine "+dir)
	return nil, sandbox.Run{Dir: "host"}, nil
}
func (h *hostLog) DeniedURL(u string) error {
	h.got = append(h.got, "url "+u)
	return errors.New("denied by host")
}

type keptNothing struct{ removed bool }

func (k *keptNothing) Open() (io.ReadCloser, error) { return nil, errors.New("none") }
func (k *keptNothing) Size() int64                  { return 0 }
func (k *keptNothing) Remove() error                { k.removed = true; return nil }

// A Runtime's Host answers every request a handler makes of its call.
func TestRuntimeHost(t *testing.T) {
	h := &hostLog{}
	var c Call
	c.Attach(Runtime{Host: h})
	c.Output("stdout", "")
	c.Output("stdout", "x")
	kept := &keptNothing{}
	c.KeepOutput(kept)
	if _, err := c.AwaitInput(context.Background(), api.InputRequest{}); err != nil {
		t.Errorf("AwaitInput: %v", err)
	}
	if _, run, _ := c.Confinement("/w"); run.Dir != "host" {
		t.Errorf("Confinement: %+v, want the host's", run)
	}
	if err := c.CheckURL("http://a"); err == nil {
		t.Error("CheckURL: nil, want the host's refusal")
	}
	want := []string{"output stdout x", "keep", "await", "confine /w", "url http://a"}
	if !slices.Equal(h.got, want) || kept.removed {
		t.Errorf("the host answered %q (kept output removed: %v), want %q", h.got, kept.removed, want)
	}
}

// A Call without a Host answers as HostFuncs{} does: output dropped, kept
// output removed, no input, processes unconfined in their directory,
// every address allowed; HostFuncs's funcs answer their own requests.
func TestHostFuncs(t *testing.T) {
	for _, c := range []*Call{{}, func() *Call { c := &Call{}; c.Attach(Runtime{Host: HostFuncs{}}); return c }()} {
		c.Output("stdout", "x")
		kept := &keptNothing{}
		c.KeepOutput(kept)
		if !kept.removed {
			t.Error("KeepOutput without a host kept the output")
		}
		if _, err := c.AwaitInput(context.Background(), api.InputRequest{}); err == nil {
			t.Error("AwaitInput without a host: nil error")
		}
		if sb, run, err := c.Confinement("/w"); sb != nil || err != nil || run.Dir != "/w" || run.Workspace != "/w" {
			t.Errorf("Confinement without a host: %v %+v %v, want unconfined in /w", sb, run, err)
		}
		if err := c.CheckURL("http://a"); err != nil {
			t.Errorf("CheckURL without a host: %v", err)
		}
	}
	var got []string
	var c Call
	c.Attach(Runtime{Host: HostFuncs{
		OnOutput: func(_, chunk string) { got = append(got, "output "+chunk) },
		OnKeep:   func(KeptOutput) { got = append(got, "keep") },
		OnAwait: func(context.Context, api.InputRequest) (api.AnswerRequest, error) {
			got = append(got, "await")
			return api.AnswerRequest{}, nil
		},
		OnConfine: func(dir string) (*sandbox.Sandbox, sandbox.Run, error) {
			got = append(got, "confine "+dir)
			return nil, sandbox.Run{}, nil
		},
		OnDeniedURL: func(u string) error { got = append(got, "url "+u); return errors.New("denied") },
	}})
	c.Output("stdout", "x")
	kept := &keptNothing{}
	c.KeepOutput(kept)
	_, awaitErr := c.AwaitInput(context.Background(), api.InputRequest{})
	_, _, _ = c.Confinement("/w")
	urlErr := c.CheckURL("http://a")
	if want := []string{"output x", "keep", "await", "confine /w", "url http://a"}; !slices.Equal(got, want) || kept.removed || awaitErr != nil || urlErr == nil {
		t.Errorf("HostFuncs answered %q (removed %v, await %v, url %v), want %q by its funcs", got, kept.removed, awaitErr, urlErr, want)
	}
}
