// Package dialect lists the dialects toolgate speaks: the tool
// vocabularies of the clients it serves, each a package of its own
// (cline, claudecode, anthropic). A dialect owns its tool set (names,
// parameters, JSON Schemas), the mapping of its calls onto the
// registry's tools (handlers.Default), and the texts its model reads.
//
// Import directions: a dialect package imports api, coordinator/tool and
// handlers (for the registry tools' input types, which its mappings
// fill in); handlers and the coordinator never import a dialect, and only
// cmd imports this list. Adding a dialect is its package plus one line in
// All.
package dialect
