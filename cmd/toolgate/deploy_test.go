package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"
)

// compose is the part of docker-compose.yml the demo depends on.
type compose struct {
	Services map[string]struct {
		Build       string            `yaml:"build"`
		Image       string            `yaml:"image"`
		Command     []string          `yaml:"command"`
		Environment map[string]string `yaml:"environment"`
		Volumes     []string          `yaml:"volumes"`
		Ports       []string          `yaml:"ports"`
		User        string            `yaml:"user"`
		Init        bool              `yaml:"init"`
		ReadOnly    bool              `yaml:"read_only"`
		Tmpfs       []string          `yaml:"tmpfs"`
		CapDrop     []string          `yaml:"cap_drop"`
		SecurityOpt []string          `yaml:"security_opt"`
		StopGrace   string            `yaml:"stop_grace_period"`
	} `yaml:"services"`
	Volumes map[string]any `yaml:"volumes"`
}

// TestComposeDemo checks the dashboard demo without a Docker engine: the
// compose file's mounts exist, ports stay on loopback, Prometheus's config
// passes promtool and scrapes a host toolgate's config allows.
func TestComposeDemo(t *testing.T) {
	root := "../.."
	data, err := os.ReadFile(filepath.Join(root, "docker-compose.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var c compose
	if err := yaml.Unmarshal(data, &c); err != nil {
		t.Fatalf("docker-compose.yml: %v", err)
	}
	tg, ok := c.Services["toolgate"]
	if !ok || tg.Build == "" {
		t.Fatal("no toolgate service built from the repository")
	}
	if _, err := os.Stat(filepath.Join(root, tg.Build, "Dockerfile")); err != nil {
		t.Errorf("toolgate build context has no Dockerfile: %v", err)
	}
	if _, ok := c.Services["prometheus"]; !ok {
		t.Fatal("no prometheus service")
	}
	for name, svc := range c.Services {
		for _, p := range svc.Ports {
			if !strings.HasPrefix(p, "127.0.0.1:") {
				t.Errorf("%s publishes %s beyond loopback", name, p)
			}
		}
		for _, v := range svc.Volumes {
			src, _, _ := strings.Cut(v, ":")
			if !strings.HasPrefix(src, ".") && !strings.HasPrefix(src, "/") {
				if _, ok := c.Volumes[src]; !ok {
					t.Errorf("%s mounts the named volume %s, which the file does not declare", name, src)
				}
				continue
			}
			if _, err := os.Stat(filepath.Join(root, src)); err != nil {
				t.Errorf("%s mounts %s, which does not exist", name, src)
			}
		}
	}
	t.Run("toolgate config loads and allows the scrape host", func(t *testing.T) {
		cfg, err := loadConfig(filepath.Join(root, "deploy/toolgate.json"))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(cfg.Server.AllowedHosts, "toolgate") {
			t.Errorf("allowed_hosts %v lacks the compose service name prometheus scrapes", cfg.Server.AllowedHosts)
		}
	})
	t.Run("promtool check config", func(t *testing.T) {
		promtool, err := exec.LookPath("promtool")
		if err != nil {
			if os.Getenv("CI") != "" {
				t.Fatal("promtool is required in CI")
			}
			t.Skip("promtool not installed")
		}
		cfgPath := filepath.Join(root, "deploy/prometheus.yml")
		out, err := exec.Command(promtool, "check", "config", cfgPath).CombinedOutput()
		if err != nil {
			t.Fatalf("promtool check config: %v\n%s", err, out)
		}
		rules := filepath.Join(root, "deploy/alerts.yml")
		if out, err := exec.Command(promtool, "check", "rules", rules).CombinedOutput(); err != nil {
			t.Fatalf("promtool check rules: %v\n%s", err, out)
		}
		prom, _ := os.ReadFile(cfgPath)
		if !strings.Contains(string(prom), "toolgate:7420") {
			t.Errorf("prometheus.yml does not scrape toolgate:7420")
		}
	})
}
