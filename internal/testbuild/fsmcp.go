package testbuild

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// FilesystemMCPPackage is the reference filesystem MCP server (Node, on
// the TypeScript SDK) that tests and benchmarks run, pinned; test.sh
// installs it.
const FilesystemMCPPackage = "@modelcontextprotocol/server-filesystem@2026.8.31"

// FilesystemMCPServer returns node and the reference filesystem server's
// script, from the scratch directory test.sh installs it in
// (TOOLGATE_MCP_FS_DIR, else <tmp>/toolgate-mcp-fs), and skips the test
// when either is missing.
func FilesystemMCPServer(tb testing.TB) (node, script string) {
	tb.Helper()
	scratch := os.Getenv("TOOLGATE_MCP_FS_DIR")
	if scratch == "" {
		scratch = filepath.Join(os.TempDir(), "toolgate-mcp-fs")
	}
	script = filepath.Join(scratch, "node_modules", "@modelcontextprotocol", "server-filesystem", "dist", "index.js")
	node, err := exec.LookPath("node")
	if _, serr := os.Stat(script); serr != nil || err != nil {
		tb.Skipf("needs node and %s in %s (npm install --no-save %s there; test.sh does)", FilesystemMCPPackage, scratch, FilesystemMCPPackage)
	}
	return node, script
}
