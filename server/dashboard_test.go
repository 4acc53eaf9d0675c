package server

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"
)

// dashboardExprs reads the provisioned Grafana dashboard and returns its
// PromQL expressions and the datasource uids its panels name.
func dashboardExprs(t *testing.T) (exprs []string, uids map[string]bool) {
	t.Helper()
	data, err := os.ReadFile("../deploy/grafana/dashboards/toolgate.json")
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		UID    string `json:"uid"`
		Panels []struct {
			Title      string `json:"title"`
			Datasource struct {
				UID string `json:"uid"`
			} `json:"datasource"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatalf("dashboard JSON: %v", err)
	}
	uids = map[string]bool{}
	for _, p := range d.Panels {
		uids[p.Datasource.UID] = true
		if len(p.Targets) == 0 {
			t.Errorf("panel %q queries nothing", p.Title)
		}
		for _, tg := range p.Targets {
			exprs = append(exprs, tg.Expr)
		}
	}
	return exprs, uids
}

// metricName finds the series names in a PromQL expression: identifiers
// of the families toolgate exports, whatever function wraps them.
var metricName = regexp.MustCompile(`\b(?:toolgate|process|go)_[a-z0-9_]+`)

// TestDashboard: the provisioned dashboard parses, every expression is
// valid PromQL (promtool checks it as a recording rule), names only
// series a live toolgate serves, and uses the provisioned datasource.
func TestDashboard(t *testing.T) {
	exprs, uids := dashboardExprs(t)
	ts := newTestServer(t)
	// Request counters have series once a request was answered.
	decodeBody[map[string]any](t, ts.do(t, "GET", "/v1/tools", nil), 200)
	resp, err := ts.Client().Get(ts.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	scrape, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	served := map[string]bool{}
	for _, line := range strings.Split(string(scrape), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name := line[:strings.IndexAny(line, "{ ")]
		served[name] = true
	}
	for _, e := range exprs {
		for _, m := range metricName.FindAllString(e, -1) {
			if !served[m] {
				t.Errorf("dashboard queries %s, which /metrics does not serve (in %q)", m, e)
			}
		}
	}

	var ds struct {
		Datasources []struct {
			UID string `yaml:"uid"`
			URL string `yaml:"url"`
		} `yaml:"datasources"`
	}
	data, err := os.ReadFile("../deploy/grafana/provisioning/datasources/prometheus.yml")
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, &ds); err != nil {
		t.Fatal(err)
	}
	for uid := range uids {
		found := false
		for _, d := range ds.Datasources {
			found = found || d.UID == uid
		}
		if !found {
			t.Errorf("panels use datasource %q, which is not provisioned", uid)
		}
	}

	t.Run("promtool parses every expression", func(t *testing.T) {
		promtool, err := exec.LookPath("promtool")
		if err != nil {
			if os.Getenv("CI") != "" {
				t.Fatal("promtool is required in CI")
			}
			t.Skip("promtool not installed")
		}
		var rules strings.Builder
		rules.WriteString("groups:\n  - name: dashboard\n    rules:\n")
		for i, e := range exprs {
			// Grafana fills $__rate_interval in; any range will do for parsing.
			q := strings.ReplaceAll(e, "$__rate_interval", "1m")
			b, _ := json.Marshal(q)
			fmt.Fprintf(&rules, "      - record: dashboard:expr%d\n        expr: %s\n", i, b)
		}
		path := filepath.Join(t.TempDir(), "rules.yml")
		if err := os.WriteFile(path, []byte(rules.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(promtool, "check", "rules", path).CombinedOutput(); err != nil {
			t.Errorf("promtool check rules: %v\n%s", err, out)
		}
	})
}
