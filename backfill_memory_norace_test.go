//go:build !race

package availmon_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/promsource"
)

// The heap is measured without the race detector only: its shadow memory
// and the allocations it adds would swamp the figures.

// emptyPrometheus answers every query with no series, as a Prometheus
// whose data began after the past the backfill asks about. When held is
// set, the first probe of the record's backfill (its step is coarser than
// the history backfill's hour) signals entered and waits for held to close.
type emptyPrometheus struct {
	held    chan struct{}
	entered chan struct{}
}

func (p *emptyPrometheus) RoundTrip(r *http.Request) (*http.Response, error) {
	form := r.URL.Query()
	if r.Body != nil {
		body, _ := io.ReadAll(r.Body)
		r.Body.Close()
		if v, err := url.ParseQuery(string(body)); err == nil {
			for k, vs := range v {
				form[k] = vs
			}
		}
	}
	kind := "vector"
	if strings.HasSuffix(r.URL.Path, "/query_range") {
		kind = "matrix"
		step, _ := strconv.ParseFloat(form.Get("step"), 64)
		if p.held != nil && step > time.Hour.Seconds() {
			held := p.held
			p.held = nil // the backfill asks one range query at a time
			close(p.entered)
			<-held
		}
	}
	body := fmt.Sprintf(`{"status":"success","data":{"resultType":%q,"result":[]}}`, kind)
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
}

// liveHeap is the heap in use after a full collection.
func liveHeap() int64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// pastFleet is a monitor with the backfill on, of n apps on each of the
// given backends (all answered by p), each app with its own expression as
// in a fleet of distinct services; it has run two cycles.
func pastFleet(t *testing.T, n int, p *emptyPrometheus, backends ...string) (*availmon.Monitor, []*promsource.Source) {
	t.Helper()
	o := availmon.Options{Interval: time.Hour, Backfill: true, Locations: []availmon.Location{{Name: "l"}}}
	var srcs []*promsource.Source
	for _, b := range backends {
		src, err := promsource.New(promsource.Options{Name: b, URL: "http://127.0.0.1:9", RoundTripper: p})
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, src)
		o.Backends = append(o.Backends, availmon.Backend{Name: b, Source: src})
		for a := range n {
			name := fmt.Sprintf("%s-app-%05d", b, a)
			o.Apps = append(o.Apps, availmon.App{Name: name, Location: "l", Backend: b,
				Metric: fmt.Sprintf(`app_up{app=%q}`, name)})
		}
	}
	m, err := availmon.New(o)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := m.Scrape(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	return m, srcs
}

// heldByRun is the heap m's Run holds now beyond what m holds once Run
// has returned (cancel stops it, done closes then): its backfill's part,
// as the rest of what a running monitor adds is small.
func heldByRun(m *availmon.Monitor, cancel func(), done <-chan struct{}) int64 {
	live := liveHeap()
	cancel()
	<-done
	after := liveHeap()
	runtime.KeepAlive(m)
	return live - after
}

// planHeap is the heap one backend's plan of the past holds: what the
// backfill would keep of it.
func planHeap(src *promsource.Source, apps []availmon.App) int64 {
	before := liveHeap()
	plan := src.PlanPast(apps)
	after := liveHeap()
	runtime.KeepAlive(plan)
	runtime.KeepAlive(apps)
	return after - before
}

func backfillState(t *testing.T, m *availmon.Monitor) string {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/status", nil))
	var st struct {
		Data struct {
			Backfill *struct {
				State string `json:"state"`
			} `json:"backfill"`
		} `json:"data"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &st); err != nil || st.Data.Backfill == nil {
		t.Fatalf("status %s: %v", rec.Body, err)
	}
	return st.Data.Backfill.State
}

func appsOf(n int, backend string) []availmon.App {
	apps := make([]availmon.App, n)
	for a := range apps {
		name := fmt.Sprintf("%s-app-%05d", backend, a)
		apps[a] = availmon.App{Name: name, Location: "l", Backend: backend, Metric: fmt.Sprintf(`app_up{app=%q}`, name)}
	}
	return apps
}

// Once the backfill is done, the monitor keeps nothing of its plans (nor
// of the history backfill's): at 100,000 apps a backend's plan of the
// past holds some 18 MB of pointers, which the GC's pacing doubles in the
// process's memory.
func TestBackfillDoneKeepsNoPlan(t *testing.T) {
	const n = 4000
	p := &emptyPrometheus{}
	m, srcs := pastFleet(t, n, p, "a")
	plan := planHeap(srcs[0], appsOf(n, "a"))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = m.Run(ctx) }()
	for backfillState(t, m) != "done" {
		time.Sleep(10 * time.Millisecond)
	}
	held := heldByRun(m, cancel, done)
	t.Logf("plan of %d apps: %d B; held after the backfill: %d B (%.0f B an app)", n, plan, held, float64(held)/n)
	if held > plan/4 {
		t.Errorf("the monitor holds %d B more after its backfill, against a plan of %d B", held, plan)
	}
}

// While the backfill asks one backend, it holds that backend's plan only:
// what it holds then, beyond what the monitor holds once it is done.
func TestBackfillRunningHoldsOneBackendsPlan(t *testing.T) {
	const n = 4000
	p := &emptyPrometheus{held: make(chan struct{}), entered: make(chan struct{})}
	held := p.held
	m, srcs := pastFleet(t, n, p, "a", "b")
	plan := planHeap(srcs[0], appsOf(n, "a"))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = m.Run(ctx) }()
	defer func() { cancel(); <-done }()
	<-p.entered
	blocked := liveHeap()
	close(held)
	for backfillState(t, m) != "done" {
		time.Sleep(10 * time.Millisecond)
	}
	live := blocked - liveHeap()
	t.Logf("plan of %d apps: %d B; live while the first backend is asked: %d B", n, plan, live)
	if live > plan*3/2 {
		t.Errorf("the backfill holds %d B while it asks one backend, against %d B a backend's plan", live, plan)
	}
}
