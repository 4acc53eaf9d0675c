package subagents

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// UseSubagents is the tool that runs up to five generic, read-only
// subagents at once.
const UseSubagents = "use_subagents"

type subagentsIn struct {
	Prompt1 string `json:"prompt_1" validate:"required" jsonschema:"the first subagent's task"`
	Prompt2 string `json:"prompt_2,omitempty" jsonschema:"a second task, run at the same time"`
	Prompt3 string `json:"prompt_3,omitempty"`
	Prompt4 string `json:"prompt_4,omitempty"`
	Prompt5 string `json:"prompt_5,omitempty"`
}

// genericAgent is the agent use_subagents runs: no system prompt of its
// own, the read-only tools.
var genericAgent = &agentFile{Name: "subagent", Tools: defaultAgentTools}

// newUseSubagents builds use_subagents over the source's runner.
func (src *Source) newUseSubagents() *tool.Tool {
	return tool.NewTool(tool.Spec[subagentsIn]{
		Name:        UseSubagents,
		Description: "Run up to five read-only subagents at once, one per prompt; each answers its own task.",
		Run: func(ctx context.Context, call *tool.Call, in *subagentsIn) (tool.Result, error) {
			prompts := []string{}
			for _, p := range []string{in.Prompt1, in.Prompt2, in.Prompt3, in.Prompt4, in.Prompt5} {
				if strings.TrimSpace(p) != "" {
					prompts = append(prompts, p)
				}
			}
			answers := make([]string, len(prompts))
			var wg sync.WaitGroup
			for i, p := range prompts {
				wg.Go(func() {
					res, err := src.runSubagent(ctx, call, genericAgent, p)
					if err != nil {
						answers[i] = "(failed: " + err.Error() + ")"
						return
					}
					answers[i] = res.LastText()
				})
			}
			wg.Wait()
			var b strings.Builder
			for i, a := range answers {
				fmt.Fprintf(&b, "<subagent_%d>\n%s\n</subagent_%d>\n", i+1, a, i+1)
			}
			return tool.Result{Content: []api.Content{api.TextContent(b.String())}}, nil
		},
	})
}
