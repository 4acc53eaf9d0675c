// Package conformance holds what the conformance harnesses share: each
// harness (one package below this one per dialect) drives a real client
// CLI against a scripted mock model and the same script through toolgate,
// then compares the two sides' tool results byte for byte.
//
// The shared pieces are small on purpose:
//   - Generate writes the deterministic workspace both sides start from;
//   - StartToolgate runs toolgate as a real process (`toolgate serve`
//     with its defaults, on loopback) and Toolgate.Call posts one
//     tool_use to it over HTTP;
//   - Normalizer holds the rules that make two results comparable, each
//     stated where it is defined;
//   - Compare, Report and CompareTrees turn the results and the
//     workspaces left behind into the figures a harness prints.
//
// It imports no layer of toolgate: the harness talks to toolgate over
// HTTP only, as a client would. Only tests import it.
package conformance
