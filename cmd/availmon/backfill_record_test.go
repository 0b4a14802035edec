package main

import (
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/availmon/availmon/filestore"
	"github.com/availmon/availmon/hmac"
	"github.com/availmon/availmon/internal/pastfixture"
	"github.com/availmon/availmon/internal/promtest"
)

// startPast starts a Prometheus holding the fixture's samples, kept for
// the whole past.
func startPast(t *testing.T, f *pastfixture.Fixture) *promtest.Server {
	t.Helper()
	prom := promtest.Start(t, promtest.PastBlock(f.OpenMetrics()), promtest.Retention(time.Since(f.Start)+30*24*time.Hour))
	prom.WaitForQuery(t, pastfixture.Metric, promtest.SampleCount(len(f.Apps)))
	return prom
}

// backfillDone waits until /api/status says the backfill is done.
func backfillDone(t *testing.T, p *proc) {
	t.Helper()
	waitFor(t, "the backfill done", 10*time.Minute, func() bool {
		st := getJSON[struct {
			Backfill *struct{ State string } `json:"backfill"`
		}](t, p.base+"/api/status")
		return st.Backfill != nil && st.Backfill.State == "done"
	})
}

type wireFigures struct {
	Name         string   `json:"name"`
	Up           int64    `json:"up_seconds"`
	Down         int64    `json:"down_seconds"`
	Unknown      int64    `json:"unknown_seconds"`
	Maintenance  int64    `json:"maintenance_seconds"`
	Availability *float64 `json:"availability"`
	Coverage     *float64 `json:"coverage"`
	Downtime     int64    `json:"downtime_seconds"`
	Outages      int      `json:"outages"`
}

type wireAvailability struct {
	From  time.Time     `json:"from"`
	To    time.Time     `json:"to"`
	Items []wireFigures `json:"items"`
}

type wireOutage struct {
	Start       time.Time  `json:"start"`
	End         *time.Time `json:"end"`
	Ongoing     bool       `json:"ongoing"`
	Duration    int64      `json:"duration_seconds"`
	Maintenance bool       `json:"maintenance"`
}

// pastQueries are the ranges the figures are compared over: a 30-day
// window, and the month and quarter of now, in UTC and in Berlin.
func pastQueries(now time.Time) []string {
	q := []string{"window=30d"}
	for _, tz := range []string{"UTC", "Europe/Berlin"} {
		loc, _ := time.LoadLocation(tz)
		n := now.In(loc)
		q = append(q, "period="+n.Format("2006-01")+"&tz="+tz,
			fmt.Sprintf("period=%d-Q%d&tz=%s", n.Year(), (int(n.Month())+2)/3, tz))
	}
	return q
}

// pastInterval is the check interval of the binaries under test: the
// backfill reads the past at this resolution, so each change of state may
// land up to one interval from the sample that made it.
const pastInterval = time.Minute

// checkAgainstModel compares every app's, location's and service's
// figures and outages the binary at base shows with the model's, each to
// one interval at each change in the range.
func checkAgainstModel(t *testing.T, f *pastfixture.Fixture, base string) {
	t.Helper()
	for _, q := range pastQueries(time.Now()) {
		for by, model := range map[string]func(string, time.Time, time.Time) pastfixture.Figures{
			"app": f.AppFigures, "location": f.LocationFigures, "service": f.ServiceFigures,
		} {
			a := getJSON[wireAvailability](t, base+"/api/availability?"+q+"&by="+by)
			if len(a.Items) == 0 {
				t.Errorf("%s by=%s: no items", q, by)
			}
			for _, it := range a.Items {
				want := model(it.Name, a.From, a.To)
				compareFigures(t, fmt.Sprintf("%s by=%s %s", q, by, it.Name), want, it, pastInterval)
			}
		}
	}
	to := time.Now().UTC().Truncate(time.Second)
	from := to.Add(-30 * 24 * time.Hour)
	rng := "?from=" + url.QueryEscape(from.Format(time.RFC3339)) + "&to=" + url.QueryEscape(to.Format(time.RFC3339))
	for _, a := range f.Apps {
		compareOutages(t, "app "+a.Name, f.AppFigures(a.Name, from, to).Outages, outagesOf(t, base+"/api/apps/"+a.Name+"/outages"+rng), pastInterval)
	}
	for _, l := range f.Locations {
		compareOutages(t, "location "+l, f.LocationFigures(l, from, to).Outages, outagesOf(t, base+"/api/locations/"+l+"/outages"+rng), pastInterval)
	}
	for _, s := range f.Services {
		compareOutages(t, "service "+s, f.ServiceFigures(s, from, to).Outages, outagesOf(t, base+"/api/services/"+s+"/outages"+rng), pastInterval)
	}
}

// checkInstancesAgree compares the outages of every app, location and
// service over the whole past as the binaries at a and b show them: the
// same outages, each edge within one interval.
func checkInstancesAgree(t *testing.T, f *pastfixture.Fixture, a, b string) {
	t.Helper()
	to := time.Now().UTC().Truncate(time.Second)
	rng := "/outages?from=" + url.QueryEscape(f.Start.Format(time.RFC3339)) + "&to=" + url.QueryEscape(to.Format(time.RFC3339))
	var paths []string
	for _, x := range f.Apps {
		paths = append(paths, "/api/apps/"+x.Name)
	}
	for _, l := range f.Locations {
		paths = append(paths, "/api/locations/"+l)
	}
	for _, s := range f.Services {
		paths = append(paths, "/api/services/"+s)
	}
	for _, p := range paths {
		ga, gb := outagesOf(t, a+p+rng), outagesOf(t, b+p+rng)
		want := make([]pastfixture.Outage, len(ga))
		for i, o := range ga {
			want[i] = pastfixture.Outage{Start: o.Start, Ongoing: o.Ongoing, Duration: time.Duration(o.Duration) * time.Second, Maintenance: o.Maintenance}
			if o.End != nil {
				want[i].End = *o.End
			}
		}
		compareOutages(t, "the two instances, "+p, want, gb, pastInterval)
	}
}

func outagesOf(t *testing.T, u string) []wireOutage {
	return getJSON[struct {
		Outages []wireOutage `json:"outages"`
	}](t, u).Outages
}

// compareFigures allows one interval per change in the range, and one at
// each end of the range.
func compareFigures(t *testing.T, what string, want pastfixture.Figures, got wireFigures, interval time.Duration) {
	t.Helper()
	tol := int64(want.Changes+2) * int64(interval/time.Second)
	for _, c := range []struct {
		name      string
		want, got int64
	}{
		{"up", want.Up, got.Up}, {"down", want.Down, got.Down}, {"unknown", want.Unknown, got.Unknown},
		{"maintenance", want.Maintenance, got.Maintenance}, {"downtime", want.Downtime, got.Downtime},
	} {
		if d := c.got - c.want; d > tol || d < -tol {
			t.Errorf("%s: %s %d s, the model %d s (within %d s)", what, c.name, c.got, c.want, tol)
		}
	}
	if known := want.Up + want.Down; known > 0 {
		wantA := 100 * float64(want.Up) / float64(known)
		if got.Availability == nil || math.Abs(*got.Availability-wantA) > 100*float64(tol)/float64(known)+0.0001 {
			t.Errorf("%s: availability %v, the model %.4f", what, got.Availability, wantA)
		}
	}
	if n := len(want.Outages); got.Outages != n {
		t.Errorf("%s: %d outages, the model %d", what, got.Outages, n)
	}
}

// compareOutages allows each edge of an outage one interval.
func compareOutages(t *testing.T, what string, want []pastfixture.Outage, got []wireOutage, interval time.Duration) {
	t.Helper()
	if len(want) != len(got) {
		t.Errorf("%s: %d outages, the model %d:\n got  %+v\n want %+v", what, len(got), len(want), got, want)
		return
	}
	near := func(a, b time.Time) bool { d := a.Sub(b); return d <= interval && d >= -interval }
	for i, w := range want {
		g := got[i]
		ok := near(w.Start, g.Start) && w.Ongoing == g.Ongoing && w.Maintenance == g.Maintenance &&
			math.Abs(float64(g.Duration)-w.Duration.Seconds()) <= 2*interval.Seconds()
		if ok && !w.Ongoing {
			ok = g.End != nil && near(w.End, *g.End)
		}
		if !ok {
			t.Errorf("%s: outage %d is %+v, the model %+v", what, i, g, w)
		}
	}
}

// A fresh binary with the backfill on, pointed at a Prometheus that holds
// the fixture's past, shows every figure of the model once its backfill is
// done; the same after a SIGKILL and a restart; and a second instance
// started later agrees.
func TestBackfillRecordFromPrometheus(t *testing.T) {
	begin := time.Now()
	bin := binary(t)
	f := pastfixture.New(time.Now())
	prom := startPast(t, f)
	dir := t.TempDir()
	cfg := writeTemp(t, f.Config(prom.URL(), time.Minute, true, "storage:\n  save_interval: 1s\n  backfill: true\n"+objectivesConfig(f)))

	t.Logf("%s: Prometheus ready", time.Since(begin).Round(time.Second))

	p := startStored(t, bin, "-config", cfg, "-storage.path", dir)
	backfillDone(t, p)
	t.Logf("%s: first backfill done", time.Since(begin).Round(time.Second))
	checkAgainstModel(t, f, p.base)
	checkObjectives(t, f, p.base)
	checkReports(t, p.base)

	waitFor(t, "a save after the backfill", 30*time.Second, func() bool {
		return fileNewer(filepath.Join(dir, filestore.FileName), time.Now().Add(-time.Second))
	})
	p.stop(t, syscall.SIGKILL)
	q := startStored(t, bin, "-config", cfg, "-storage.path", dir)
	backfillDone(t, q)
	t.Logf("%s: backfill after the restart done", time.Since(begin).Round(time.Second))
	checkAgainstModel(t, f, q.base)

	second := startStored(t, bin, "-config", cfg, "-storage.path", t.TempDir())
	backfillDone(t, second)
	t.Logf("%s: second instance's backfill done", time.Since(begin).Round(time.Second))
	checkAgainstModel(t, f, second.base)
	checkInstancesAgree(t, f, q.base, second.base)
}

// fileNewer says whether the file at path was written after t.
func fileNewer(path string, t time.Time) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.ModTime().After(t)
}

// A window posted through the signed API over billing's outage and on past
// now, a SIGKILL after its save, and a restart with the backfill on: the
// backfilled outage is maintenance where the window covers it, not down,
// exactly as the live time the first instance observed in the window, and
// every figure is the model's with the window so.
func TestBackfillHonoursAPIMaintenance(t *testing.T) {
	bin := binary(t)
	now := time.Now()
	f := pastfixture.New(now)
	prom := startPast(t, f)
	dir := t.TempDir()
	auth := "authentication:\n  hmac:\n    enabled: true\n    secret: " + replaySecret + "\n"
	live := writeTemp(t, f.Config(prom.URL(), pastInterval, false, "storage:\n  save_interval: 1s\n"+auth))
	filled := writeTemp(t, f.Config(prom.URL(), pastInterval, false, "storage:\n  save_interval: 1s\n  backfill: true\n"+auth))

	p := startStored(t, bin, "-config", live, "-storage.path", dir)
	waitFor(t, "/health 200", 30*time.Second, func() bool { code, _ := get(t, p.base+"/health"); return code == http.StatusOK })
	w := f.Maintenance
	w.To = now.Add(2 * time.Hour).Truncate(time.Second)
	body := fmt.Sprintf(`{"app":%q,"from":%q,"to":%q}`, w.App, w.From.Format(time.RFC3339), w.To.Format(time.RFC3339))
	posted := time.Now()
	if code, resp := signedPost(t, p.base, "/api/maintenance", body); code != http.StatusCreated {
		t.Fatalf("signed POST /api/maintenance %s = %d %s", body, code, resp)
	}
	waitFor(t, "a save after the window", 30*time.Second, func() bool {
		return fileNewer(filepath.Join(dir, filestore.FileName), posted)
	})
	p.stop(t, syscall.SIGKILL)

	q := startStored(t, bin, "-config", filled, "-storage.path", dir)
	backfillDone(t, q)
	g := *f
	g.Maintenance = w
	checkAgainstModel(t, &g, q.base)
	a := getJSON[wireAvailability](t, q.base+"/api/availability?window=30d&by=app")
	for _, it := range a.Items {
		if want := int64(a.To.Sub(w.From) / time.Second); it.Name == w.App && it.Maintenance != want {
			t.Errorf("%s: %d s of maintenance, want %d s: all its time since the window began", w.App, it.Maintenance, want)
		}
	}
}

// signedPost sends body to path with an HMAC signature of replaySecret and
// returns the status and body of the answer.
func signedPost(t *testing.T, base, path, body string) (int, string) {
	t.Helper()
	at := time.Now()
	sig := hmac.Signature([]byte(replaySecret), http.MethodPost, path, []byte(body), at.Unix())
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(hmac.HeaderTimestamp, strconv.FormatInt(at.Unix(), 10))
	req.Header.Set(hmac.HeaderAuthorization, hmac.Scheme+" "+sig)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
