// Package coordinator turns tool_use blocks into tool_result blocks. It owns
// the registry (tool name -> handler built by a factory), the per-call
// pipeline (lookup, validation, policy, execution, normalization, metrics),
// sessions with their bounded event logs, and the ordering of a message's
// calls. It knows nothing of HTTP: the server package drives it.
package coordinator
