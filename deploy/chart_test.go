package deploy

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/lint"
	"helm.sh/helm/v3/pkg/lint/support"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
)

const (
	chartDir    = "helm/availmon"
	releaseName = "availmon"
	namespace   = "monitoring"
)

// A secret long enough for authentication.hmac.
const testSecret = "0123456789abcdef0123456789abcdef-chart-test"

// combination is one documented way of installing the chart: its values
// on top of values.yaml, as `helm install -f` would give them.
type combination struct {
	name   string
	values string
	check  func(t *testing.T, r rendered)
}

// combinations are the chart's documented uses (docs/deploy.md).
var combinations = []combination{
	{"defaults", "", func(t *testing.T, r rendered) {
		sts := one[*appsv1.StatefulSet](t, r)
		if got := *sts.Spec.Replicas; got != 1 {
			t.Errorf("replicas %d, want 1", got)
		}
		if n := len(sts.Spec.VolumeClaimTemplates); n != 1 {
			t.Errorf("%d volume claim templates, want 1 (the state volume)", n)
		}
		if n := count[*monitoringv1.ServiceMonitor](r) + count[*monitoringv1.PrometheusRule](r) + count[*corev1.Secret](r); n != 0 {
			t.Errorf("defaults render a ServiceMonitor, PrometheusRule or Secret: %s", r.kinds())
		}
	}},
	{"three replicas", "replicaCount: 3", func(t *testing.T, r rendered) {
		if got := *one[*appsv1.StatefulSet](t, r).Spec.Replicas; got != 3 {
			t.Errorf("replicas %d, want 3", got)
		}
	}},
	{"existing ConfigMap", "existingConfigMap: my-availmon\nconfigKey: config.yaml", func(t *testing.T, r rendered) {
		if n := count[*corev1.ConfigMap](r); n != 0 {
			t.Errorf("%d ConfigMaps rendered, want none: the user's is used", n)
		}
		pod := one[*appsv1.StatefulSet](t, r).Spec.Template
		if got := configVolume(t, pod.Spec).ConfigMap.Name; got != "my-availmon" {
			t.Errorf("config volume from ConfigMap %q, want my-availmon", got)
		}
		if !slices.Contains(pod.Spec.Containers[0].Args, "-config=/etc/availmon/config.yaml") {
			t.Errorf("args %q lack -config=/etc/availmon/config.yaml", pod.Spec.Containers[0].Args)
		}
		if _, ok := pod.Annotations["checksum/config"]; ok {
			t.Error("checksum/config of a ConfigMap the chart does not render")
		}
	}},
	{"ServiceMonitor and PrometheusRule", "serviceMonitor: {enabled: true, labels: {release: prom}}\nprometheusRule: {enabled: true}", func(t *testing.T, r rendered) {
		sm := one[*monitoringv1.ServiceMonitor](t, r)
		svc := one[*corev1.Service](t, r)
		for k, v := range sm.Spec.Selector.MatchLabels {
			if svc.Labels[k] != v {
				t.Errorf("ServiceMonitor selects %s=%s; the Service has %q", k, v, svc.Labels[k])
			}
		}
		if job := scrapeJob(t, sm); job != "monitoring/availmon" {
			t.Errorf("the ServiceMonitor's scrapes have job %q, want monitoring/availmon (the release's namespace and name)", job)
		}
		if ep := sm.Spec.Endpoints; len(ep) != 1 || ep[0].Port != "http" || ep[0].Path != "/metrics" {
			t.Errorf("ServiceMonitor endpoints %+v, want port http, path /metrics", ep)
		}
		if sm.Labels["release"] != "prom" {
			t.Errorf("ServiceMonitor labels %v lack release=prom", sm.Labels)
		}
		if n := len(one[*monitoringv1.PrometheusRule](t, r).Spec.Groups); n == 0 {
			t.Error("PrometheusRule has no groups")
		}
	}},
	{"HMAC from the chart's Secret", "hmac: {enabled: true, secret: " + testSecret + "}\nconfig: {authentication: {hmac: {protect_reads: true}}, scrape_interval: 15s}", func(t *testing.T, r rendered) {
		sec := one[*corev1.Secret](t, r)
		if got := string(sec.Data["secret"]); got != testSecret {
			t.Errorf("Secret holds %q, want the secret of the values", got)
		}
		cm := one[*corev1.ConfigMap](t, r).Data["availmon.yaml"]
		for _, want := range []string{"secret: ${AVAILMON_HMAC_SECRET}", "protect_reads: true", "enabled: true"} {
			if !strings.Contains(cm, want) {
				t.Errorf("configuration lacks %q:\n%s", want, cm)
			}
		}
		if strings.Contains(cm, testSecret) {
			t.Error("the secret itself is in the ConfigMap")
		}
	}},
	{"HMAC from an existing Secret", "hmac: {enabled: true, existingSecret: availmon-hmac, secretKey: key}\nextraArgs: [-web.enable-reload]", func(t *testing.T, r rendered) {
		if n := count[*corev1.Secret](r); n != 0 {
			t.Errorf("%d Secrets rendered, want none: the user's is used", n)
		}
		c := one[*appsv1.StatefulSet](t, r).Spec.Template.Spec.Containers[0]
		ref := c.Env[0].ValueFrom.SecretKeyRef
		if c.Env[0].Name != "AVAILMON_HMAC_SECRET" || ref.Name != "availmon-hmac" || ref.Key != "key" {
			t.Errorf("env %+v, want AVAILMON_HMAC_SECRET from availmon-hmac/key", c.Env[0])
		}
	}},
	{"no persistence", "persistence: {enabled: false}", func(t *testing.T, r rendered) {
		sts := one[*appsv1.StatefulSet](t, r)
		if n := len(sts.Spec.VolumeClaimTemplates); n != 0 {
			t.Errorf("%d volume claim templates, want none", n)
		}
		for _, v := range sts.Spec.Template.Spec.Volumes {
			if v.Name == "data" && v.EmptyDir == nil {
				t.Errorf("data volume %+v, want an emptyDir", v)
			}
		}
	}},
}

// scrapeJob is the job label the prometheus-operator gives the scrapes of
// sm: the service's name, or the label jobLabel names, unless a
// relabeling of the endpoint (applied after those) replaces it.
func scrapeJob(t *testing.T, sm *monitoringv1.ServiceMonitor) string {
	t.Helper()
	if len(sm.Spec.Endpoints) != 1 {
		t.Fatalf("ServiceMonitor endpoints %+v, want one", sm.Spec.Endpoints)
	}
	job := ""
	for _, r := range sm.Spec.Endpoints[0].RelabelConfigs {
		if r.TargetLabel == "job" && (r.Action == "" || r.Action == "replace") && len(r.SourceLabels) == 0 && r.Replacement != nil {
			job = *r.Replacement
		}
	}
	if job == "" {
		t.Fatalf("the ServiceMonitor does not set the job: %+v", sm.Spec)
	}
	return job
}

// configVolume is the pod's volume named config.
func configVolume(t *testing.T, pod corev1.PodSpec) corev1.Volume {
	t.Helper()
	for _, v := range pod.Volumes {
		if v.Name == "config" && v.ConfigMap != nil {
			return v
		}
	}
	t.Fatalf("no config volume from a ConfigMap in %+v", pod.Volumes)
	return corev1.Volume{}
}

// rendered is the chart's output for one combination, decoded.
type rendered struct {
	objects []runtime.Object
}

// strictDecoder decodes manifests as the API server would with
// fieldValidation=Strict: an unknown or duplicate field is an error.
func strictDecoder(t *testing.T) *kjson.Serializer {
	t.Helper()
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, appsv1.AddToScheme, monitoringv1.AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	return kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, scheme, scheme,
		kjson.SerializerOptions{Yaml: true, Strict: true})
}

func loadChart(t *testing.T) *chart.Chart {
	t.Helper()
	c, err := loader.Load(chartDir)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// render renders the chart with values as `helm template` does, the
// values checked against values.schema.json first.
func render(c *chart.Chart, values string) (map[string]string, error) {
	return renderRelease(c, releaseName, namespace, values)
}

// renderRelease is render for the release name in namespace ns.
func renderRelease(c *chart.Chart, name, ns, values string) (map[string]string, error) {
	vals, err := chartutil.ReadValues([]byte(values))
	if err != nil {
		return nil, err
	}
	opts := chartutil.ReleaseOptions{Name: name, Namespace: ns, Revision: 1, IsInstall: true}
	top, err := chartutil.ToRenderValues(c, vals.AsMap(), opts, chartutil.DefaultCapabilities)
	if err != nil {
		return nil, err
	}
	return engine.Render(c, top)
}

// decodeAll decodes every manifest of out strictly into its API type.
func decodeAll(t *testing.T, dec *kjson.Serializer, out map[string]string) rendered {
	t.Helper()
	var r rendered
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range out {
			if !yield(n) {
				return
			}
		}
	})
	for _, name := range names {
		if strings.HasSuffix(name, "NOTES.txt") {
			continue
		}
		for i, doc := range strings.Split(out[name], "\n---") {
			if strings.TrimSpace(stripComments(doc)) == "" {
				continue
			}
			obj, _, err := dec.Decode([]byte(doc), nil, nil)
			if err != nil {
				t.Fatalf("%s, document %d: %v\n%s", name, i, err, doc)
			}
			r.objects = append(r.objects, obj)
		}
	}
	return r
}

var commentLine = regexp.MustCompile(`(?m)^\s*#.*$`)

func stripComments(doc string) string { return commentLine.ReplaceAllString(doc, "") }

// one returns the only object of type T, failing unless there is exactly
// one.
func one[T runtime.Object](t *testing.T, r rendered) T {
	t.Helper()
	var found []T
	for _, o := range r.objects {
		if v, ok := o.(T); ok {
			found = append(found, v)
		}
	}
	if len(found) != 1 {
		var zero T
		t.Fatalf("%d objects of type %T rendered, want 1", len(found), zero)
	}
	return found[0]
}

// count returns how many objects of type T were rendered.
func count[T runtime.Object](r rendered) int {
	n := 0
	for _, o := range r.objects {
		if _, ok := o.(T); ok {
			n++
		}
	}
	return n
}

// kinds lists the rendered kinds, sorted, for messages.
func (r rendered) kinds() string {
	var k []string
	for _, o := range r.objects {
		k = append(k, fmt.Sprintf("%T", o))
	}
	sort.Strings(k)
	return strings.Join(k, ", ")
}

// lintChart runs Helm's linter with values and fails on any warning or
// error (information, such as "icon is recommended", is not a fault).
func lintChart(t *testing.T, values string) {
	t.Helper()
	vals, err := chartutil.ReadValues([]byte(values))
	if err != nil {
		t.Fatal(err)
	}
	l := lint.All(chartDir, vals.AsMap(), namespace, false)
	for _, m := range l.Messages {
		if m.Severity >= support.WarningSev {
			t.Errorf("helm lint: %s", m.Error())
		}
	}
}
