package main

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v4"
)

// dockerfile is the runtime stage of the Dockerfile, instruction by
// instruction, with continuation lines joined.
func dockerfile(t *testing.T) (build string, runtime []string) {
	t.Helper()
	f, err := os.Open("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var all []string
	var cur strings.Builder
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasSuffix(line, "\\") {
			cur.WriteString(strings.TrimSuffix(line, "\\") + " ")
			continue
		}
		cur.WriteString(line)
		all = append(all, cur.String())
		cur.Reset()
	}
	stage := 0
	for _, ins := range all {
		if strings.HasPrefix(ins, "FROM ") {
			stage++
			continue
		}
		if stage == 1 && strings.Contains(ins, "go build") {
			build = ins
		}
		if stage == 2 {
			runtime = append(runtime, ins)
		}
	}
	if stage != 2 || build == "" {
		t.Fatalf("Dockerfile: want a build stage with go build and a runtime stage, got %d stages", stage)
	}
	return build, runtime
}

// TestContainerImage checks the Dockerfile without a Docker engine: the
// runtime stage runs unprivileged under an init, checks its health, ships
// what stdio MCP servers and the sandbox need, and its build line builds.
func TestContainerImage(t *testing.T) {
	build, rt := dockerfile(t)
	find := func(prefix string) string {
		for _, ins := range rt {
			if strings.HasPrefix(ins, prefix) {
				return ins
			}
		}
		return ""
	}
	t.Run("unprivileged user", func(t *testing.T) {
		user := strings.TrimSpace(strings.TrimPrefix(find("USER "), "USER"))
		if user == "" || strings.HasPrefix(user, "0") || strings.HasPrefix(user, "root") {
			t.Errorf("runtime stage runs as %q, want a non-root user", user)
		}
	})
	t.Run("init and health check", func(t *testing.T) {
		if ep := find("ENTRYPOINT "); !strings.Contains(ep, "tini") {
			t.Errorf("entrypoint %q does not start under tini", ep)
		}
		if hc := find("HEALTHCHECK "); !strings.Contains(hc, "/healthz") {
			t.Errorf("health check %q does not ask /healthz", hc)
		}
		if find("STOPSIGNAL SIGTERM") == "" {
			t.Errorf("no STOPSIGNAL SIGTERM")
		}
	})
	t.Run("packages", func(t *testing.T) {
		var installs string
		for _, ins := range rt {
			if strings.HasPrefix(ins, "RUN ") && strings.Contains(ins, "apt-get install") {
				installs += ins
			}
		}
		for _, pkg := range []string{"bubblewrap", "nodejs", "npm", "python3", "pipx", "tini", "git", "curl"} {
			if !regexp.MustCompile(`\s` + pkg + `(\s|$)`).MatchString(installs) {
				t.Errorf("runtime stage does not install %s", pkg)
			}
		}
	})
	t.Run("the build line builds a working binary", func(t *testing.T) {
		if testing.Short() {
			t.Skip("builds the binary")
		}
		cmdline := strings.TrimPrefix(build, "RUN ")
		dir := t.TempDir()
		out := filepath.Join(dir, "toolgate")
		if !strings.Contains(cmdline, "-o /out/ ") {
			t.Fatalf("build line %q does not write into /out/", build)
		}
		cmdline = strings.Replace(cmdline, "-o /out/ ", "-o "+dir+"/ ", 1)
		cmd := exec.Command("sh", "-c", cmdline)
		cmd.Dir = "../.."
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", cmdline, err, b)
		}
		// The sandbox's helper is built beside toolgate, and the runtime
		// stage copies both into one directory.
		if _, err := os.Stat(filepath.Join(dir, "toolgate-sandbox")); err != nil {
			t.Errorf("the build line does not build toolgate-sandbox: %v", err)
		}
		if cp := find("COPY --from=build /out/toolgate /out/toolgate-sandbox "); cp == "" {
			t.Errorf("the runtime stage does not copy toolgate-sandbox beside toolgate")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		srv := exec.CommandContext(ctx, out, "serve", "--addr", addr, "--workspace", t.TempDir())
		srv.Env = append(os.Environ(), "TOOLGATE_TOKEN=container-test")
		if err := srv.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { _ = srv.Process.Kill(); _ = srv.Wait() }()
		for {
			resp, err := testHTTP.Get("http://" + addr + "/healthz")
			if err == nil {
				var health struct {
					Sandbox struct{ Mode, Helper string }
				}
				derr := json.NewDecoder(resp.Body).Decode(&health)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK || derr != nil {
					t.Fatalf("healthz: %s (%v)", resp.Status, derr)
				}
				if m := health.Sandbox.Mode; (m == "bwrap" || m == "landlock") && health.Sandbox.Helper != "toolgate-sandbox" {
					t.Errorf("healthz sandbox helper %q, want toolgate-sandbox (installed beside toolgate)", health.Sandbox.Helper)
				}
				return
			}
			select {
			case <-ctx.Done():
				t.Fatalf("the built binary never answered /healthz: %v", err)
			case <-time.After(50 * time.Millisecond):
			}
		}
	})
}

// TestComposeHardening: the toolgate service writes as the host user, has a
// read-only root with the workspace and state writable, no capabilities,
// an init and time to finish running calls on stop; Grafana is provisioned
// with the dashboard and the datasource.
func TestComposeHardening(t *testing.T) {
	data, err := os.ReadFile("../../docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	var c compose
	if err := yaml.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	tg := c.Services["toolgate"]
	if !strings.Contains(tg.User, "UID") || !strings.Contains(tg.User, "GID") {
		t.Errorf("user %q: the host user's uid:gid must be settable", tg.User)
	}
	if !tg.ReadOnly || !tg.Init {
		t.Errorf("read_only=%v init=%v, want both", tg.ReadOnly, tg.Init)
	}
	if len(tg.CapDrop) != 1 || tg.CapDrop[0] != "ALL" {
		t.Errorf("cap_drop %v, want [ALL]", tg.CapDrop)
	}
	writable := map[string]bool{}
	for _, v := range tg.Volumes {
		parts := strings.Split(v, ":")
		if len(parts) >= 2 && (len(parts) == 2 || parts[2] != "ro") {
			writable[parts[1]] = true
		}
	}
	for _, p := range tg.Tmpfs {
		writable[p] = true
	}
	for _, p := range []string{"/workspace", "/var/lib/toolgate", "/tmp"} {
		if !writable[p] {
			t.Errorf("%s is not writable in the read-only container", p)
		}
	}
	if d, err := time.ParseDuration(tg.StopGrace); err != nil || d < 30*time.Second {
		t.Errorf("stop_grace_period %q: running calls need time to finish", tg.StopGrace)
	}
	g, ok := c.Services["grafana"]
	if !ok || !strings.HasPrefix(g.Image, "grafana/") {
		t.Fatalf("no grafana service from Grafana's official image")
	}
	for _, v := range g.Volumes {
		src, _, _ := strings.Cut(v, ":")
		if _, err := os.Stat(filepath.Join("../..", src)); err != nil {
			t.Errorf("grafana mounts %s: %v", src, err)
		}
	}
}

// TestKubernetesConfigLoads: the config the Kubernetes manifests mount is
// one toolgate accepts, and it lets clients address the Service by name.
func TestKubernetesConfigLoads(t *testing.T) {
	data, err := os.ReadFile("../../deploy/kubernetes/configmap.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cm struct {
		Data map[string]string `yaml:"data"`
	}
	if err := yaml.Unmarshal(data, &cm); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "toolgate.json")
	if err := os.WriteFile(path, []byte(cm.Data["toolgate.json"]), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := loadConfig(path)
	if err != nil {
		t.Fatalf("the config map's toolgate.json: %v", err)
	}
	if !slices.Contains(cfg.Server.AllowedHosts, "toolgate") {
		t.Errorf("allowed_hosts %v lacks the Service name", cfg.Server.AllowedHosts)
	}
}
