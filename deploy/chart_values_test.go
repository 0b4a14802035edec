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
		{"job that PromQL would need quoted", `job: 'prod"availmon'`, "job"},
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

// A changed configuration changes the pod template's checksum/config
// annotation, and a changed HMAC secret of the chart's Secret its
// checksum/secret, so that Kubernetes rolls the pod (the state stays on its
// volume); other changes leave them alone. A Secret of the user's own is
// not the chart's to see: no checksum/secret then.
func TestChartChecksumRollsOnConfigChange(t *testing.T) {
	c := loadChart(t)
	dec := strictDecoder(t)
	annotation := func(values, name string) string {
		t.Helper()
		out, err := render(c, values)
		if err != nil {
			t.Fatal(err)
		}
		return one[*appsv1.StatefulSet](t, decodeAll(t, dec, out)).Spec.Template.Annotations[name]
	}
	sum := func(values string) string {
		t.Helper()
		v := annotation(values, "checksum/config")
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

	secret := func(values string) string {
		t.Helper()
		v := annotation(values, "checksum/secret")
		if v == "" {
			t.Fatalf("values %q: no checksum/secret annotation", values)
		}
		return v
	}
	withSecret := "hmac: {enabled: true, secret: " + testSecret + "}\n"
	baseSecret := secret(withSecret)
	if got := secret("hmac: {enabled: true, secret: " + testSecret + "-rotated}"); got == baseSecret {
		t.Error("a rotated HMAC secret leaves checksum/secret as it was")
	}
	if got := secret(withSecret + "config: {scrape_interval: 15s}\nreplicaCount: 2"); got != baseSecret {
		t.Error("a change outside the secret changed checksum/secret")
	}
	for _, values := range []string{"", "hmac: {enabled: true, existingSecret: s}"} {
		if got := annotation(values, "checksum/secret"); got != "" {
			t.Errorf("values %q: checksum/secret %q of no Secret of the chart's", values, got)
		}
	}
}

// The chart's copy of the rules is what `availmon rules -job __JOB__
// -only-job` prints, and the PrometheusRule of a release holds exactly the
// rules `availmon rules -job JOB -only-job` prints for the release's job.
func TestChartPrometheusRuleIsAvailmonRules(t *testing.T) {
	want := availmonRules(t, "-job", "__JOB__", "-only-job")
	copied, err := os.ReadFile(chartDir + "/files/availmon-rules.yml")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(copied, want) {
		t.Fatalf("deploy/helm/availmon/files/availmon-rules.yml is not what `availmon rules` prints; run\n"+
			"  go run ./cmd/availmon rules -job __JOB__ -only-job > deploy/helm/availmon/files/availmon-rules.yml\n(-want +got):\n%s",
			cmp.Diff(string(want), string(copied)))
	}
	c := loadChart(t)
	for _, tt := range []struct{ values, job string }{
		{"prometheusRule: {enabled: true}", "monitoring/availmon"},
		{"prometheusRule: {enabled: true}\njob: availmon", "availmon"},
	} {
		out, err := render(c, tt.values)
		if err != nil {
			t.Fatal(err)
		}
		got := one[*monitoringv1.PrometheusRule](t, decodeAll(t, strictDecoder(t), out)).Spec.Groups
		if diff := cmp.Diff(ruleGroups(t, availmonRules(t, "-job", tt.job, "-only-job")), got); diff != "" {
			t.Errorf("values %q: PrometheusRule groups differ from `availmon rules -job %s -only-job` (-want +got):\n%s", tt.values, tt.job, diff)
		}
	}
}

// Two releases that one Prometheus scrapes (staging and prod, each in its
// namespace, also under one release name) keep apart: each one's scrapes
// have a job of their own, and each one's PrometheusRule reads that job's
// series alone, so neither records the other's series nor alerts on them.
func TestChartReleasesKeepApart(t *testing.T) {
	c := loadChart(t)
	values := "serviceMonitor: {enabled: true}\nprometheusRule: {enabled: true}"
	jobs := map[string]bool{}
	for _, rel := range []struct{ name, ns, job string }{
		{"staging", "staging", "staging/staging-availmon"},
		{"prod", "prod", "prod/prod-availmon"},
		{"availmon", "staging", "staging/availmon"},
		{"availmon", "prod", "prod/availmon"},
	} {
		out, err := renderRelease(c, rel.name, rel.ns, values)
		if err != nil {
			t.Fatal(err)
		}
		r := decodeAll(t, strictDecoder(t), out)
		job := scrapeJob(t, one[*monitoringv1.ServiceMonitor](t, r))
		if job != rel.job || jobs[job] {
			t.Errorf("release %s in %s: job %q, want %q, of no other release", rel.name, rel.ns, job, rel.job)
		}
		jobs[job] = true
		got := one[*monitoringv1.PrometheusRule](t, r).Spec.Groups
		if diff := cmp.Diff(ruleGroups(t, availmonRules(t, "-job", job, "-only-job")), got); diff != "" {
			t.Errorf("release %s in %s: its rules are not those of its job (-want +got):\n%s", rel.name, rel.ns, diff)
		}
	}
}

// availmonRules is what `availmon rules args...` prints.
func availmonRules(t *testing.T, args ...string) []byte {
	t.Helper()
	out, err := exec.Command(release(t).native(), append([]string{"rules"}, args...)...).Output()
	if err != nil {
		t.Fatalf("availmon rules %s: %v", strings.Join(args, " "), err)
	}
	return out
}

// ruleGroups decodes a rule file strictly.
func ruleGroups(t *testing.T, file []byte) []monitoringv1.RuleGroup {
	t.Helper()
	var f struct {
		Groups []monitoringv1.RuleGroup `json:"groups"`
	}
	if err := yaml.UnmarshalStrict(file, &f); err != nil {
		t.Fatal(err)
	}
	return f.Groups
}
