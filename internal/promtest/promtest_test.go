package promtest_test

import (
	"context"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"

	"github.com/availmon/availmon/internal/promtest"
)

// The helper itself: Prometheus scrapes the exporter, follows Set and
// Delete, sees a closed exporter as down, and keeps its port and data
// across Stop and Restart.
func TestServerScrapesExporter(t *testing.T) {
	a, b := promtest.NewExporter(t), promtest.NewExporter(t)
	a.Set("x", 1)
	b.Set("y", 0)
	// A fixed target whose own job label wins with honor_labels.
	static := promtest.NewStaticTarget(t, "# TYPE demo_up gauge\ndemo_up{app=\"z\",job=\"own\"} 1\n")
	srv := promtest.Start(t, promtest.Job("a", a.Target()), promtest.Job("b", b.Target()),
		promtest.HonorLabelsJob("static", static.Target()))
	if !strings.HasPrefix(srv.URL(), "http://127.0.0.1:") {
		t.Fatalf("URL %q is not on loopback", srv.URL())
	}

	srv.WaitForTarget(t, a.Target(), v1.HealthGood)
	srv.WaitForQuery(t, `demo_up{app="x", job="a"}`, promtest.SampleEquals(1))
	srv.WaitForQuery(t, `demo_up{app="y", job="b"}`, promtest.SampleEquals(0))
	srv.WaitForQuery(t, `demo_up{app="z", job="own"}`, promtest.SampleEquals(1))

	a.Set("x", 0)
	srv.WaitForQuery(t, `demo_up{app="x"}`, promtest.SampleEquals(0))
	a.Delete("x")
	srv.WaitForQuery(t, `demo_up{app="x"}`, promtest.SampleCount(0))

	b.Close()
	srv.WaitForTarget(t, b.Target(), v1.HealthBad)
	srv.WaitForQuery(t, `up{job="b"}`, promtest.SampleEquals(0))
	srv.WaitForQuery(t, `demo_up{app="y"}`, promtest.SampleCount(0))

	url := srv.URL()
	srv.Stop()
	if res, err := http.Get(url + "/-/ready"); err == nil {
		res.Body.Close()
		t.Fatalf("after Stop, %s still answers (%s)", url, res.Status)
	}
	srv.Restart()
	if srv.URL() != url {
		t.Errorf("Restart moved the server from %s to %s", url, srv.URL())
	}
	// The data directory survived: the sample scraped before the restart
	// is still there.
	v := srv.WaitForQuery(t, `count_over_time(up{job="a"}[1h]) > 0`, promtest.SampleCount(1))
	if got := v.(model.Vector)[0].Metric["instance"]; string(got) != a.Target() {
		t.Errorf("instance = %q, want %q", got, a.Target())
	}
	if _, err := srv.Query(context.Background(), "up"); err != nil {
		t.Errorf("query after restart: %v", err)
	}
}

// recordingTB records how Start gave up instead of ending the real test.
type recordingTB struct {
	testing.TB
	skipped, fatal string
}

func (r *recordingTB) Helper() {}

func (r *recordingTB) Skip(args ...any) {
	r.skipped = fmt.Sprint(args...)
	runtime.Goexit()
}

func (r *recordingTB) Fatal(args ...any) {
	r.fatal = fmt.Sprint(args...)
	runtime.Goexit()
}

// Without the binary, Start skips outside CI and fails in CI.
func TestStartWithoutBinary(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	for _, tt := range []struct {
		ci                  string
		wantSkip, wantFatal bool
	}{
		{ci: "", wantSkip: true},
		{ci: "true", wantFatal: true},
	} {
		t.Setenv("CI", tt.ci)
		r := &recordingTB{TB: t}
		done := make(chan struct{})
		go func() {
			defer close(done)
			promtest.Start(r)
		}()
		<-done
		if got := r.skipped != ""; got != tt.wantSkip {
			t.Errorf("CI=%q: skipped %v (%q), want %v", tt.ci, got, r.skipped, tt.wantSkip)
		}
		if got := r.fatal != ""; got != tt.wantFatal {
			t.Errorf("CI=%q: failed %v (%q), want %v", tt.ci, got, r.fatal, tt.wantFatal)
		}
		if msg := r.skipped + r.fatal; !strings.Contains(msg, "apt-get install -y prometheus") {
			t.Errorf("CI=%q: message %q does not say how to install the binary", tt.ci, msg)
		}
	}
}
