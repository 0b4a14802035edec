package deploy

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Every documented combination of values lints clean, renders, decodes
// strictly into the API types, keeps the pod restricted and probed on
// /health, and yields a configuration that availmon's own loader accepts.
func TestChartCombinations(t *testing.T) {
	c := loadChart(t)
	dec := strictDecoder(t)
	bin := release(t).native()
	for _, tt := range combinations {
		t.Run(tt.name, func(t *testing.T) {
			lintChart(t, tt.values)
			out, err := render(c, tt.values)
			if err != nil {
				t.Fatal(err)
			}
			r := decodeAll(t, dec, out)
			sts := one[*appsv1.StatefulSet](t, r)
			checkPod(t, sts.Spec.Template.Spec)
			checkService(t, one[*corev1.Service](t, r), sts)
			if count[*corev1.ConfigMap](r) == 1 {
				checkConfigLoads(t, bin, r)
			}
			tt.check(t, r)
		})
	}
}

// checkPod: non-root, read-only root filesystem, no capabilities, no
// privilege escalation, probes on /health, requests set, state on /data.
func checkPod(t *testing.T, pod corev1.PodSpec) {
	t.Helper()
	if len(pod.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(pod.Containers))
	}
	c := pod.Containers[0]
	psc, sc := pod.SecurityContext, c.SecurityContext
	switch {
	case psc == nil || sc == nil:
		t.Fatal("no securityContext")
	case psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.RunAsUser == nil || *psc.RunAsUser == 0:
		t.Errorf("pod securityContext %+v does not run as a non-root user", psc)
	case psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault:
		t.Errorf("pod seccompProfile %+v, want RuntimeDefault", psc.SeccompProfile)
	case sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem:
		t.Error("root filesystem is writable")
	case sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation:
		t.Error("privilege escalation allowed")
	case sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(sc.Capabilities.Add) > 0:
		t.Errorf("capabilities %+v, want all dropped", sc.Capabilities)
	}
	if pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken {
		t.Error("the service account token is mounted; availmon does not use the API")
	}
	for name, p := range map[string]*corev1.Probe{"liveness": c.LivenessProbe, "readiness": c.ReadinessProbe} {
		if p == nil || p.HTTPGet == nil || p.HTTPGet.Path != "/health" || p.HTTPGet.Port != intstr.FromString("http") {
			t.Errorf("%s probe %+v, want GET /health on port http", name, p)
		}
	}
	if c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() {
		t.Errorf("requests %v lack cpu or memory", c.Resources.Requests)
	}
	if len(c.Ports) != 1 || c.Ports[0].Name != "http" || c.Ports[0].ContainerPort != 8080 {
		t.Errorf("ports %+v, want http 8080", c.Ports)
	}
	for _, want := range []string{"-listen=:8080", "-storage.path=/data"} {
		if !slices.Contains(c.Args, want) {
			t.Errorf("args %q lack %s", c.Args, want)
		}
	}
	mounts := map[string]string{}
	for _, m := range c.VolumeMounts {
		mounts[m.Name] = m.MountPath
	}
	if mounts["data"] != "/data" || mounts["config"] != "/etc/availmon" {
		t.Errorf("mounts %v, want data on /data and config on /etc/availmon", mounts)
	}
}

func checkService(t *testing.T, svc *corev1.Service, sts *appsv1.StatefulSet) {
	t.Helper()
	for k, v := range svc.Spec.Selector {
		if sts.Spec.Template.Labels[k] != v {
			t.Errorf("Service selects %s=%s; the pods have %q", k, v, sts.Spec.Template.Labels[k])
		}
	}
	if p := svc.Spec.Ports; len(p) != 1 || p[0].TargetPort != intstr.FromString("http") {
		t.Errorf("Service ports %+v, want one to port http", p)
	}
	if sts.Spec.ServiceName != svc.Name {
		t.Errorf("StatefulSet serviceName %q, want the Service %q", sts.Spec.ServiceName, svc.Name)
	}
}

// checkConfigLoads runs the availmon binary with -check-config on the
// rendered file, with the container's own arguments and environment (a
// Secret's value resolved from the rendered Secret, or a stand-in for a
// Secret of the user's).
func checkConfigLoads(t *testing.T, bin string, r rendered) {
	t.Helper()
	cm := one[*corev1.ConfigMap](t, r)
	c := one[*appsv1.StatefulSet](t, r).Spec.Template.Spec.Containers[0]
	dir := t.TempDir()
	var args []string
	for _, a := range c.Args {
		if key, ok := strings.CutPrefix(a, "-config=/etc/availmon/"); ok {
			path := filepath.Join(dir, key)
			if err := os.WriteFile(path, []byte(cm.Data[key]), 0o644); err != nil {
				t.Fatal(err)
			}
			a = "-config=" + path
		}
		args = append(args, a)
	}
	env := []string{"PATH=" + os.Getenv("PATH")}
	for _, e := range c.Env {
		v := e.Value
		if ref := e.ValueFrom; ref != nil && ref.SecretKeyRef != nil {
			v = testSecret
			if count[*corev1.Secret](r) == 1 {
				v = string(one[*corev1.Secret](t, r).Data[ref.SecretKeyRef.Key])
			}
		}
		env = append(env, e.Name+"="+v)
	}
	cmd := exec.Command(bin, append(args, "-check-config")...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "config OK: ") {
		t.Errorf("availmon %s -check-config: %v\n%s\nthe file:\n%s", strings.Join(args, " "), err, out, cm.Data)
	}
}
