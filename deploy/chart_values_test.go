package deploy

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/yaml"
)

// values.schema.json refuses a misspelled or mistyped value at install,
// at the top and in every nested table; the values as documented pass.
func TestChartSchemaRefusesMisspelledValues(t *testing.T) {
	c := loadChart(t)
	tests := []struct {
		name, values, wantErr string
	}{
		{"top-level key", "replicaCont: 2", "replicaCont"},
		{"nested key", "serviceMonitor: {enable: true}", "enable"},
		{"hmac key", "hmac: {enabled: true, secretName: x}", "secretName"},
		{"persistence key", "persistence: {storageClass: fast}", "storageClass"},
		{"image key", "image: {repo: x}", "repo"},
		{"wrong type", "replicaCount: two", "replicaCount"},
		{"unknown pull policy", "image: {pullPolicy: Sometimes}", "pullPolicy"},
		{"resources key", "resources: {request: {cpu: 1}}", "request"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := render(c, tt.values)
			if err == nil {
				t.Fatalf("values %q rendered; want the schema to refuse them", tt.values)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %q does not name %q", err, tt.wantErr)
			}
		})
	}
	for _, tt := range combinations {
		if _, err := render(c, tt.values); err != nil {
			t.Errorf("documented values %q: %v", tt.values, err)
		}
	}
}

// The decoder the chart's manifests go through is strict: a misspelled
// field fails, as it would with kubectl apply --validate=strict.
func TestStrictDecoderRefusesUnknownField(t *testing.T) {
	dec := strictDecoder(t)
	for _, doc := range []string{
		"apiVersion: v1\nkind: Service\nmetadata: {name: x}\nspec: {prots: [{port: 80}]}\n",
		"apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata: {name: x}\nspec: {endpoints: [{port: http, pth: /metrics}]}\n",
		"apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: x}\nspec: {replicas: 1, replicas: 2}\n",
		"apiVersion: v1\nkind: Service\nmetadata: {name: x}\nspec: {Type: ClusterIP}\n",
	} {
		if _, _, err := dec.Decode([]byte(doc), nil, nil); err == nil {
			t.Errorf("decoded without error:\n%s", doc)
		}
	}
}

// hmac.enabled with a secret shorter than availmon accepts fails at
// install, not in a crash-looping pod.
func TestChartRefusesShortSecret(t *testing.T) {
	_, err := render(loadChart(t), "hmac: {enabled: true, secret: short}")
	if err == nil || !strings.Contains(err.Error(), "at least 32 bytes") {
		t.Errorf("error %v, want one about the secret's length", err)
	}
}

// A changed configuration changes the pod template's checksum annotation,
// so that Kubernetes rolls the pod (the state stays on its volume); other
// changes leave it alone.
func TestChartChecksumRollsOnConfigChange(t *testing.T) {
	c := loadChart(t)
	dec := strictDecoder(t)
	sum := func(values string) string {
		t.Helper()
		out, err := render(c, values)
		if err != nil {
			t.Fatal(err)
		}
		v := one[*appsv1.StatefulSet](t, decodeAll(t, dec, out)).Spec.Template.Annotations["checksum/config"]
		if v == "" {
			t.Fatalf("values %q: no checksum/config annotation", values)
		}
		return v
	}
	base := sum("")
	if got := sum("config: {scrape_interval: 15s}"); got == base {
		t.Error("a changed scrape_interval leaves the checksum as it was")
	}
	if got := sum("hmac: {enabled: true, existingSecret: s}"); got == base {
		t.Error("turning on HMAC (which changes the file) leaves the checksum as it was")
	}
	if got := sum("replicaCount: 2\nserviceMonitor: {enabled: true}"); got != base {
		t.Error("a change outside the configuration changed the checksum")
	}
}

// The PrometheusRule holds exactly the rules `availmon rules` prints, and
// the chart's copy of them is current.
func TestChartPrometheusRuleIsAvailmonRules(t *testing.T) {
	cmd := exec.Command(release(t).native(), "rules")
	want, err := cmd.Output()
	if err != nil {
		t.Fatalf("availmon rules: %v", err)
	}
	copied, err := os.ReadFile(chartDir + "/files/availmon-rules.yml")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(copied, want) {
		t.Fatalf("deploy/helm/availmon/files/availmon-rules.yml is not what `availmon rules` prints; run\n"+
			"  go run ./cmd/availmon rules > deploy/helm/availmon/files/availmon-rules.yml\n(-want +got):\n%s",
			cmp.Diff(string(want), string(copied)))
	}
	var wantRules struct {
		Groups []monitoringv1.RuleGroup `json:"groups"`
	}
	if err := yaml.UnmarshalStrict(want, &wantRules); err != nil {
		t.Fatal(err)
	}
	out, err := render(loadChart(t), "prometheusRule: {enabled: true}")
	if err != nil {
		t.Fatal(err)
	}
	got := one[*monitoringv1.PrometheusRule](t, decodeAll(t, strictDecoder(t), out)).Spec.Groups
	if diff := cmp.Diff(wantRules.Groups, got); diff != "" {
		t.Errorf("PrometheusRule groups differ from `availmon rules` (-want +got):\n%s", diff)
	}
}
