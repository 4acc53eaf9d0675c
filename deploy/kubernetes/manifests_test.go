// Package kubernetes holds toolgate's Kubernetes manifests; its test checks
// them against the Kubernetes API types, since no cluster or schema
// registry is reachable from CI.
package kubernetes

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"
)

// decodeStrict decodes one manifest into typ, failing on any field the
// type does not have (a misspelt or misplaced key).
func decodeStrict(t *testing.T, file string, into any) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(data, into); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

// TestKustomizationListsEveryManifest: a manifest left out of the
// kustomization is never applied.
func TestKustomizationListsEveryManifest(t *testing.T) {
	var k struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Labels     []any  `json:"labels"`
		Resources  []string
	}
	decodeStrict(t, "kustomization.yaml", &k)
	files, _ := filepath.Glob("*.yaml")
	for _, f := range files {
		if f == "kustomization.yaml" {
			continue
		}
		found := false
		for _, r := range k.Resources {
			found = found || r == f
		}
		if !found {
			t.Errorf("%s is not in kustomization.yaml's resources", f)
		}
	}
	for _, r := range k.Resources {
		if _, err := os.Stat(r); err != nil {
			t.Errorf("kustomization.yaml lists %s: %v", r, err)
		}
	}
}

func TestStatefulSet(t *testing.T) {
	var s appsv1.StatefulSet
	decodeStrict(t, "statefulset.yaml", &s)
	if s.Kind != "StatefulSet" || s.APIVersion != "apps/v1" {
		t.Fatalf("kind %s/%s", s.APIVersion, s.Kind)
	}
	if s.Spec.Replicas == nil || *s.Spec.Replicas != 1 {
		t.Errorf("replicas must be 1: one writer per workspace")
	}
	sel := s.Spec.Selector.MatchLabels
	for k, v := range sel {
		if s.Spec.Template.Labels[k] != v {
			t.Errorf("selector %s=%s does not match the pod template's labels", k, v)
		}
	}
	pod := s.Spec.Template.Spec
	if pod.SecurityContext == nil || pod.SecurityContext.RunAsNonRoot == nil || !*pod.SecurityContext.RunAsNonRoot {
		t.Errorf("pod must run as non-root")
	}
	if len(pod.Containers) != 1 {
		t.Fatalf("containers: %d", len(pod.Containers))
	}
	c := pod.Containers[0]
	if c.Resources.Limits.Memory().IsZero() || c.Resources.Limits.Cpu().IsZero() {
		t.Errorf("container has no memory or CPU limit")
	}
	if c.ReadinessProbe == nil || c.ReadinessProbe.HTTPGet == nil || c.ReadinessProbe.HTTPGet.Path != "/healthz" {
		t.Errorf("readiness probe must GET /healthz")
	}
	if c.LivenessProbe == nil || c.LivenessProbe.HTTPGet == nil || c.LivenessProbe.HTTPGet.Path != "/healthz" {
		t.Errorf("liveness probe must GET /healthz")
	}
	sc := c.SecurityContext
	if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
		sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
		sc.Capabilities == nil || len(sc.Capabilities.Drop) != 1 || sc.Capabilities.Drop[0] != "ALL" {
		t.Errorf("container must have a read-only root, no privilege escalation and drop ALL capabilities: %+v", sc)
	}
	var tokenFromSecret bool
	for _, e := range c.Env {
		if e.Name == "TOOLGATE_TOKEN" {
			tokenFromSecret = e.Value == "" && e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil
		}
	}
	if !tokenFromSecret {
		t.Errorf("TOOLGATE_TOKEN must come from a Secret")
	}
	// Every mount names a volume of the pod or a claim template.
	vols := map[string]bool{}
	for _, v := range pod.Volumes {
		vols[v.Name] = true
	}
	for _, v := range s.Spec.VolumeClaimTemplates {
		vols[v.Name] = true
	}
	mounts := map[string]string{}
	for _, m := range c.VolumeMounts {
		if !vols[m.Name] {
			t.Errorf("mount %s names no volume", m.Name)
		}
		mounts[m.MountPath] = m.Name
	}
	for _, p := range []string{"/workspace", "/var/lib/toolgate", "/tmp", "/etc/toolgate"} {
		if mounts[p] == "" {
			t.Errorf("nothing is mounted at %s (the root file system is read-only)", p)
		}
	}
	if a := s.Spec.Template.Annotations; a["prometheus.io/scrape"] != "true" || a["prometheus.io/path"] != "/metrics" {
		t.Errorf("scrape annotations missing: %v", a)
	}
	if !strings.Contains(strings.Join(c.Args, " "), "--workspace /workspace") {
		t.Errorf("args do not serve /workspace: %v", c.Args)
	}
}

func TestServiceAndNetworkPolicy(t *testing.T) {
	var svc corev1.Service
	decodeStrict(t, "service.yaml", &svc)
	if svc.Spec.Type != corev1.ServiceTypeClusterIP {
		t.Errorf("service type %s: toolgate must stay inside the cluster", svc.Spec.Type)
	}
	if len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].TargetPort != intstr.FromString("http") {
		t.Errorf("service ports: %+v", svc.Spec.Ports)
	}
	var np networkingv1.NetworkPolicy
	decodeStrict(t, "networkpolicy.yaml", &np)
	if len(np.Spec.PolicyTypes) != 2 {
		t.Errorf("policy types %v: both ingress and egress must be restricted", np.Spec.PolicyTypes)
	}
	if np.Spec.PodSelector.MatchLabels["app.kubernetes.io/name"] != svc.Spec.Selector["app.kubernetes.io/name"] {
		t.Errorf("network policy selects other pods than the service")
	}
}

func TestServiceMonitor(t *testing.T) {
	// The Prometheus Operator's type is not in k8s.io/api; its fields are
	// checked by shape.
	var sm struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name   string            `json:"name"`
			Labels map[string]string `json:"labels"`
		} `json:"metadata"`
		Spec struct {
			Selector  struct{ MatchLabels map[string]string } `json:"selector"`
			Endpoints []struct {
				Port     string `json:"port"`
				Path     string `json:"path"`
				Interval string `json:"interval"`
			} `json:"endpoints"`
		} `json:"spec"`
	}
	decodeStrict(t, "servicemonitor.yaml", &sm)
	if sm.APIVersion != "monitoring.coreos.com/v1" || sm.Kind != "ServiceMonitor" {
		t.Errorf("kind %s/%s", sm.APIVersion, sm.Kind)
	}
	if len(sm.Spec.Endpoints) != 1 || sm.Spec.Endpoints[0].Port != "http" || sm.Spec.Endpoints[0].Path != "/metrics" {
		t.Errorf("endpoints: %+v", sm.Spec.Endpoints)
	}
}

func TestConfigMapAndClaim(t *testing.T) {
	var cm corev1.ConfigMap
	decodeStrict(t, "configmap.yaml", &cm)
	if !bytes.Contains([]byte(cm.Data["toolgate.json"]), []byte(`"allowed_hosts"`)) {
		t.Errorf("toolgate.json does not allow the Service's host names")
	}
	var pvc corev1.PersistentVolumeClaim
	decodeStrict(t, "workspace-pvc.yaml", &pvc)
	var s appsv1.StatefulSet
	decodeStrict(t, "statefulset.yaml", &s)
	for _, v := range s.Spec.Template.Spec.Volumes {
		if v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName != pvc.Name {
			t.Errorf("statefulset claims %s, the manifest defines %s", v.PersistentVolumeClaim.ClaimName, pvc.Name)
		}
		if v.ConfigMap != nil && v.ConfigMap.Name != cm.Name {
			t.Errorf("statefulset mounts config map %s, the manifest defines %s", v.ConfigMap.Name, cm.Name)
		}
	}
}
