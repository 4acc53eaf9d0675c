package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// newToken runs `toolgate token new NAME SCOPES --file F` and returns the
// printed token.
func newToken(t *testing.T, file, name, scopes string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	if err := run(t.Context(), []string{"toolgate", "token", "new", name, scopes, "--file", file}, os.Getenv, strings.NewReader(""), &out, &errOut); err != nil {
		t.Fatalf("token new %s: %v\n%s", name, err, errOut.String())
	}
	return strings.TrimSpace(out.String())
}

// TestTokensFileScopes: tokens made with `toolgate token new` into a
// tokens file named by the config work with their scopes only: the call
// token reads the tool list but may not read the audit, the admin token
// may; the file holds no token, only hashes; a name used twice is refused.
func TestTokensFileScopes(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "tokens")
	agent := newToken(t, file, "agent", "call")
	ops := newToken(t, file, "ops", "admin")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), agent) || strings.Contains(string(data), ops) {
		t.Fatalf("the tokens file holds a token itself:\n%s", data)
	}
	if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o600 {
		t.Errorf("tokens file mode %v, want 0600", fi.Mode().Perm())
	}
	var errOut bytes.Buffer
	if err := run(t.Context(), []string{"toolgate", "token", "new", "agent", "approve", "--file", file}, os.Getenv,
		strings.NewReader(""), &bytes.Buffer{}, &errOut); err == nil || !strings.Contains(err.Error(), "used twice") {
		t.Fatalf("a second token named agent: %v, want refused as used twice", err)
	}

	cfg := filepath.Join(dir, "toolgate.json")
	b, _ := json.Marshal(map[string]any{"server": map[string]any{"tokens_file": "tokens"}})
	if err := os.WriteFile(cfg, b, 0o644); err != nil {
		t.Fatal(err)
	}
	inst := start(t, t.TempDir(), "--config", cfg)
	for _, c := range []struct {
		token, path string
		want        int
	}{
		{agent, "/v1/tools", http.StatusOK},
		{agent, "/v1/audit", http.StatusForbidden},
		{ops, "/v1/audit", http.StatusOK},
		{ops, "/v1/tools", http.StatusForbidden},
		{"not-a-token", "/v1/tools", http.StatusUnauthorized},
	} {
		req, _ := http.NewRequestWithContext(context.Background(), "GET", inst.url+c.path, nil)
		req.Header.Set("Authorization", "Bearer "+c.token)
		resp, err := testHTTP.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("GET %s with %.8s…: %d, want %d", c.path, c.token, resp.StatusCode, c.want)
		}
	}
}

// TestTokensFileProblems: a malformed tokens file stops the start with
// each bad line named.
func TestTokensFileProblems(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "tokens"), []byte("# comment\nonly two\nbob root "+strings.Repeat("a", 64)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "toolgate.json")
	if err := os.WriteFile(cfg, []byte(`{"server":{"tokens_file":"tokens"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := loadConfig(cfg)
	if err == nil {
		t.Fatal("a malformed tokens file was accepted")
	}
	if !strings.Contains(err.Error(), "line 2") {
		t.Errorf("error %q does not name line 2", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tokens"), []byte("bob root "+strings.Repeat("a", 64)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := loadConfig(cfg); err == nil || !strings.Contains(err.Error(), `unknown scope "root"`) {
		t.Errorf("unknown scope: %v", err)
	}
}
