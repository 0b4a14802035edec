package availmon_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/filestore"
	"github.com/availmon/availmon/hmac"
	"github.com/availmon/availmon/internal/availtest"
	"github.com/availmon/availmon/internal/promtest"
)

// recordPast is 10 days of demo_up, one sample a minute, for three apps:
// a down twice, b down for 7 minutes, c without any sample for 2 hours.
type recordPast struct {
	T    time.Time
	down map[string][][2]time.Time
	gap  [2]time.Time
}

func (p recordPast) openMetrics(start time.Time) string {
	var b strings.Builder
	b.WriteString("# TYPE demo_up gauge\n")
	for _, app := range []string{"a", "b", "c"} {
		for t := start; !t.After(p.T.Add(15 * time.Minute)); t = t.Add(time.Minute) {
			if app == "c" && !t.Before(p.gap[0]) && t.Before(p.gap[1]) {
				continue
			}
			v := 1
			for _, d := range p.down[app] {
				if !t.Before(d[0]) && t.Before(d[1]) {
					v = 0
				}
			}
			fmt.Fprintf(&b, "demo_up{app=%q} %d %d\n", app, v, t.Unix())
		}
	}
	b.WriteString("# EOF\n")
	return b.String()
}

type wireOutage struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
}

// A fresh availmon backfills each app's record from Prometheus: the
// outages and down time /api/apps/{name}/outages and /api/availability
// give are those written, a gap without data is unknown, never down, and
// the request count stays small.
func TestBackfillRecordFromPrometheus(t *testing.T) {
	T := time.Now().Truncate(time.Minute)
	day := 24 * time.Hour
	p := recordPast{T: T, down: map[string][][2]time.Time{
		"a": {{T.Add(-7*day + 3*time.Hour), T.Add(-7*day + 5*time.Hour + 30*time.Minute)}, {T.Add(-2*day - 90*time.Minute), T.Add(-2*day - 80*time.Minute)}},
		"b": {{T.Add(-3*day + 17*time.Minute), T.Add(-3*day + 24*time.Minute)}},
	}, gap: [2]time.Time{T.Add(-5 * day), T.Add(-5*day + 2*time.Hour)}}
	start := T.Add(-10 * day)
	srv := promtest.Start(t, promtest.Past(p.openMetrics(start)))
	srv.WaitForQuery(t, `demo_up`, promtest.SampleCount(3))

	be, _ := availtest.PromBackend(t, "main", srv)
	var log promtest.SyncBuffer
	var apps []availmon.App
	for _, a := range []string{"a", "b", "c"} {
		apps = append(apps, availmon.App{Name: a, Location: "Tel Aviv", Metric: fmt.Sprintf(`demo_up{app=%q}`, a)})
	}
	m, err := availmon.New(availmon.Options{
		Locations: []availmon.Location{{Name: "Tel Aviv", Latitude: 32, Longitude: 34}},
		Apps:      apps, Backends: []availmon.Backend{be},
		Interval: time.Hour, Backfill: true,
		Logger: slog.New(slog.NewTextHandler(&log, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	c := availtest.ServeAPI(t, m)
	waitBackfillDone(t, c, &log)
	if n := regexp.MustCompile(`record of availability done.* requests=(\d+)`).FindStringSubmatch(log.String()); n != nil {
		t.Logf("requests for 10 days of 3 apps: %s", n[1])
	}

	from, to := start.Add(time.Hour), T.Add(-time.Hour)
	q := fmt.Sprintf("?from=%s&to=%s", from.Format(time.RFC3339), to.Format(time.RFC3339))
	for _, app := range []string{"a", "b", "c"} {
		var resp struct {
			Data struct{ Outages []wireOutage } `json:"data"`
		}
		c.Get("/api/apps/"+app+"/outages"+q, &resp)
		got := resp.Data.Outages
		want := p.down[app]
		if len(got) != len(want) {
			t.Errorf("%s: %d outages %+v, want %d", app, len(got), got, len(want))
			continue
		}
		for i, o := range got {
			if !o.Start.Equal(want[i][0]) || !o.End.Equal(want[i][1]) {
				t.Errorf("%s outage %d: %s to %s, want %s to %s", app, i, o.Start, o.End, want[i][0], want[i][1])
			}
		}
	}
	var av struct {
		Data struct {
			Items []struct {
				Name    string  `json:"name"`
				Down    float64 `json:"down_seconds"`
				Unknown float64 `json:"unknown_seconds"`
			} `json:"items"`
		} `json:"data"`
	}
	c.Get("/api/availability?window=9d&by=app", &av)
	wantDown := map[string]float64{"a": (150 + 10) * 60, "b": 7 * 60, "c": 0}
	for _, it := range av.Data.Items {
		if it.Down != wantDown[it.Name] {
			t.Errorf("%s: down %v s, want %v", it.Name, it.Down, wantDown[it.Name])
		}
		// c's gap is unknown, less the lookback Prometheus reads past its
		// last sample.
		if it.Name == "c" && (it.Unknown < 115*60 || it.Unknown > 120*60) {
			t.Errorf("c: unknown %v s, want about 2h", it.Unknown)
		}
	}
}

// waitBackfillDone polls /api/status until its backfill is done.
func waitBackfillDone(t *testing.T, c *availtest.API, log *promtest.SyncBuffer) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for {
		var st struct {
			Data struct {
				Backfill struct {
					State    string  `json:"state"`
					Progress float64 `json:"progress"`
				} `json:"backfill"`
			} `json:"data"`
		}
		c.Get("/api/status", &st)
		if st.Data.Backfill.State == "done" {
			if st.Data.Backfill.Progress != 1 {
				t.Errorf("backfill done at progress %v", st.Data.Backfill.Progress)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("backfill not done (%s):\n%s", st.Data.Backfill.State, log.String())
		}
		time.Sleep(50 * time.Millisecond) // polling a condition, not waiting for an outcome
	}
}

// A maintenance window set through the signed API over part of an app's
// outage, before a restart whose backfill learns that outage from
// Prometheus: the backfilled time inside the window is maintenance, not
// down, in /api/availability and the outage says maintenance overlapped.
func TestBackfillRecordMaintenanceFromPrometheus(t *testing.T) {
	T := time.Now().Truncate(time.Minute)
	day := 24 * time.Hour
	out := [2]time.Time{T.Add(-2*day + 3*time.Hour), T.Add(-2*day + 5*time.Hour)}
	win := [2]time.Time{out[0].Add(time.Hour), out[0].Add(90 * time.Minute)}
	p := recordPast{T: T, down: map[string][][2]time.Time{"a": {out}},
		gap: [2]time.Time{T.Add(-20 * day), T.Add(-20 * day)}}
	srv := promtest.Start(t, promtest.Past(p.openMetrics(T.Add(-10*day))))
	srv.WaitForQuery(t, `demo_up`, promtest.SampleCount(3))
	secret := []byte("0123456789abcdef0123456789abcdef")
	dir := t.TempDir()
	var log promtest.SyncBuffer
	start := func(backfill bool) (*availtest.API, func()) {
		v, err := hmac.NewVerifier(hmac.VerifierOptions{Secrets: [][]byte{secret}})
		if err != nil {
			t.Fatal(err)
		}
		st, err := filestore.New(filestore.Options{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		be, _ := availtest.PromBackend(t, "main", srv)
		var apps []availmon.App
		for _, a := range []string{"a", "b", "c"} {
			apps = append(apps, availmon.App{Name: a, Location: "Tel Aviv", Metric: fmt.Sprintf(`demo_up{app=%q}`, a)})
		}
		m, err := availmon.New(availmon.Options{
			Locations: []availmon.Location{{Name: "Tel Aviv", Latitude: 32, Longitude: 34}},
			Apps:      apps, Backends: []availmon.Backend{be},
			Interval: time.Hour, Backfill: backfill, Authenticator: v, Store: st,
			Logger: slog.New(slog.NewTextHandler(&log, nil)),
		})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- m.Run(ctx) }()
		var once sync.Once
		stop := func() {
			once.Do(func() {
				cancel()
				if err := <-done; err != nil {
					t.Errorf("Run: %v", err)
				}
			})
		}
		t.Cleanup(stop)
		return availtest.ServeAPI(t, m), stop
	}

	c, stop := start(false)
	body := fmt.Sprintf(`{"app":"a","from":%q,"to":%q,"comment":"failover drill"}`,
		win[0].Format(time.RFC3339), win[1].Format(time.RFC3339))
	req, err := http.NewRequest(http.MethodPost, c.Srv.URL+"/api/maintenance", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if err := hmac.SignRequest(req, secret, time.Now()); err != nil {
		t.Fatal(err)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("POST /api/maintenance: %d", res.StatusCode)
	}
	stop()

	c, _ = start(true)
	waitBackfillDone(t, c, &log)
	var av struct {
		Data struct {
			Items []struct {
				Name        string  `json:"name"`
				Down        float64 `json:"down_seconds"`
				Maintenance float64 `json:"maintenance_seconds"`
			} `json:"items"`
		} `json:"data"`
	}
	c.Get("/api/availability?window=9d&by=app", &av)
	found := false
	for _, it := range av.Data.Items {
		if it.Name != "a" {
			continue
		}
		found = true
		if it.Down != 90*60 || it.Maintenance != 30*60 {
			t.Errorf("a: down %v s, maintenance %v s; want 5400 s down (2h outage less the window), 1800 s maintenance",
				it.Down, it.Maintenance)
		}
	}
	if !found {
		t.Fatalf("no app a in /api/availability: %+v", av)
	}
	var outs struct {
		Data struct {
			Outages []struct {
				Start       time.Time `json:"start"`
				End         time.Time `json:"end"`
				Maintenance bool      `json:"maintenance"`
			} `json:"outages"`
		} `json:"data"`
	}
	c.Get(fmt.Sprintf("/api/apps/a/outages?from=%s&to=%s", T.Add(-9*day).Format(time.RFC3339), T.Format(time.RFC3339)), &outs)
	if o := outs.Data.Outages; len(o) != 1 || !o[0].Start.Equal(out[0]) || !o[0].End.Equal(out[1]) || !o[0].Maintenance {
		t.Errorf("a's outages: %+v, want one %s to %s with maintenance", o, out[0], out[1])
	}
}
