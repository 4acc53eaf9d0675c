package main

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/launch"
	"github.com/toolgate/toolgate/internal/testbuild"
)

// buildToolgate is the real binary, built once per test binary.
func buildToolgate(t *testing.T) string { return testbuild.Binary(t, testbuild.Toolgate) }

// startBinary starts the built binary with extra environment and stdin,
// and returns its URL and process.
func startBinary(t *testing.T, bin string, env []string, stdin string, args ...string) (string, *launch.Server) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	t.Cleanup(cancel)
	srv, err := launch.Start(ctx, bin, launch.Options{
		Args:  launch.ServeArgs(t.TempDir(), append([]string{"--store", "memory", "--log-format", "json"}, args...)...),
		Env:   env,
		Stdin: strings.NewReader(stdin),
	})
	if err != nil {
		t.Fatalf("the server did not start: %v", err)
	}
	t.Cleanup(srv.Kill)
	return srv.URL, srv
}

func authorized(t *testing.T, url, token string) int {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), "GET", url+"/v1/tools", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestTokenNotInProc: the token given in TOOLGATE_TOKEN, by file or on
// stdin works, and is in neither the server's environ nor its argv.
func TestTokenNotInProc(t *testing.T) {
	bin := buildToolgate(t)
	const token = "proc-check-token-5f1c2e9a"
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		env   []string
		stdin string
		args  []string
	}{
		{"environment", []string{"TOOLGATE_TOKEN=" + token}, "", nil},
		{"token file", nil, "", []string{"--token-file", tokenFile}},
		{"stdin", nil, token + "\n", []string{"--token-file", "-"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			url, srv := startBinary(t, bin, tc.env, tc.stdin, tc.args...)
			if got := authorized(t, url, token); got != http.StatusOK {
				t.Fatalf("GET /v1/tools with the token: %d", got)
			}
			if got := authorized(t, url, "wrong"); got != http.StatusUnauthorized {
				t.Fatalf("GET /v1/tools with a wrong token: %d", got)
			}
			pid := strconv.Itoa(srv.Pid())
			for _, f := range []string{"environ", "cmdline"} {
				data, err := os.ReadFile(filepath.Join("/proc", pid, f))
				if err != nil {
					t.Fatal(err)
				}
				if strings.Contains(string(data), token) {
					t.Errorf("/proc/%s/%s holds the token", pid, f)
				}
			}
		})
	}
}
