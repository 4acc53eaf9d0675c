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

// A Runtime's Host answers every request its func fields leave nil, and
// a func field set beside it answers its own request instead.
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

	h.got = nil
	var own []string
	c.Attach(Runtime{Host: h,
		Output: func(string, string) { own = append(own, "output") },
		Keep:   func(KeptOutput) { own = append(own, "keep") },
		Await: func(context.Context, api.InputRequest) (api.AnswerRequest, error) {
			own = append(own, "await")
			return api.AnswerRequest{}, nil
		},
		Confine: func(string) (*sandbox.Sandbox, sandbox.Run, error) {
			own = append(own, "confine")
			return nil, sandbox.Run{}, nil
		},
		DeniedURL: func(string) error { own = append(own, "url"); return nil },
	})
	c.Output("stdout", "x")
	c.KeepOutput(kept)
	_, _ = c.AwaitInput(context.Background(), api.InputRequest{})
	_, _, _ = c.Confinement("/w")
	_ = c.CheckURL("http://a")
	if len(h.got) != 0 || !slices.Equal(own, []string{"output", "keep", "await", "confine", "url"}) {
		t.Errorf("with func fields set the host answered %q and the funcs %q", h.got, own)
	}
}
