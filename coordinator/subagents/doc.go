// Package subagents turns agent files into tools: use_subagent_<name>
// for each agent file of the configured directory (YAML front-matter and
// a system prompt, named as Cline names them) and use_subagents, which
// runs up to five generic read-only agents at once. It owns the agent
// directory's watch, the runners (a command or an HTTP endpoint) and the
// scoped tokens that admit a runner to its child session only.
//
// What a run needs of the coordinator (the registry's tool names, a
// child session, the sandbox of the command runner) it asks through
// Host, which the coordinator implements: the package never imports the
// coordinator. It imports api, the tool contract (coordinator/tool) and
// internal/ only (imports_test.go: seamImports).
package subagents
