// Package handlers holds toolgate's tools, one file each: the tool's input
// type (json, validate and jsonschema tags) and its Run function. Every file
// access goes through the workspace's os.Root. tools.go lists the default
// tool set.
package handlers
