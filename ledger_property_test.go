package availmon_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/availmontest"
)

// The record the monitor keeps, against a plain model of its definitions
// (docs/decisions.md, "Availability over time"): random checks of three
// apps in two locations and one service, random gaps, maintenance windows
// on apps, a location and the service posted and deleted through the API,
// and restarts (the state saved, a new Monitor loading it). The model
// counts second by second: a check holds until the next one, at most twice
// the interval; a location follows the tally of its apps outside
// maintenance; the service its quorum state, with apps in maintenance
// counted as up; a location or service is in maintenance when one window
// covers all its apps.
func TestLedgerProperty(t *testing.T) {
	for seed := range uint64(4) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			p := newPropRun(t, rand.New(rand.NewPCG(seed, 26)))
			for range 110 {
				p.step()
			}
			p.compare()
		})
	}
}

const propInterval = time.Minute

// The run starts an hour before Berlin moved to summer time
// (2026-03-29T01:00Z), so that a Berlin day of 23 hours is asked about.
var propStart = time.Date(2026, 3, 29, 0, 0, 0, 0, time.UTC)

var propApps = []struct{ name, loc string }{{"a", "L1"}, {"b", "L1"}, {"c", "L2"}}

// propWindow is a maintenance window as posted: the apps it covers, and
// when it was deleted (zero: never).
type propWindow struct {
	id       string
	apps     []int
	from, to time.Time
	deleted  time.Time
	posted   time.Time
}

// propRun drives a Monitor on a fake clock and keeps what the model needs:
// each cycle's time and the results the apps got then.
type propRun struct {
	t       *testing.T
	rng     *rand.Rand
	clock   *availmontest.Clock
	src     *availmontest.Source
	store   *availmontest.Store
	h       http.Handler
	stop    func()
	cycles  []time.Time
	results [][]availmon.Status // per cycle, per app
	windows []*propWindow
	last    []availmon.Status
}

func newPropRun(t *testing.T, rng *rand.Rand) *propRun {
	p := &propRun{t: t, rng: rng, clock: availmontest.NewClock(propStart), src: availmontest.NewSource(),
		store: availmontest.NewStore(nil), last: make([]availmon.Status, len(propApps))}
	for i := range p.last {
		p.last[i] = availmon.StatusUp
	}
	p.script()
	p.start()
	t.Cleanup(func() { p.stop() })
	return p
}

// start runs a new Monitor that loads the state the store holds, and waits
// for its first cycle.
func (p *propRun) start() {
	t := p.t
	var apps []availmon.App
	for _, a := range propApps {
		apps = append(apps, availmon.App{Name: a.name, Location: a.loc, Labels: map[string]string{"service": "svc"}})
	}
	m, err := availmon.New(availmon.Options{
		Locations: []availmon.Location{{Name: "L1", Latitude: 1, Longitude: 1}, {Name: "L2", Latitude: 2, Longitude: 2}},
		Apps:      apps, Services: []availmon.Service{{Name: "svc"}},
		Source: p.src, Clock: p.clock, Interval: propInterval, Store: p.store,
		SaveInterval: 24 * time.Hour, AllowUnauthenticatedWrites: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	p.h = m.Handler()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	p.stop = func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
		p.stop = func() {}
	}
	p.cycled()
}

// cycled waits for the cycle an advance started and notes its time and
// the results it got.
func (p *propRun) cycled() {
	ctx, cancel := context.WithTimeout(p.t.Context(), 10*time.Second) // bounds a hang, measures nothing
	defer cancel()
	if err := p.clock.BlockUntil(ctx, 2); err != nil {
		p.t.Fatalf("the cycle did not end: %v", err)
	}
	p.cycles = append(p.cycles, p.clock.Now())
	p.results = append(p.results, slices.Clone(p.last))
	p.pick()
	p.script()
}

// pick draws the apps' next results: mostly what they were, so that
// outages last a while and a day stays under the exact bound of changes.
func (p *propRun) pick() {
	for i := range p.last {
		if p.rng.IntN(5) != 0 {
			continue
		}
		p.last[i] = []availmon.Status{availmon.StatusUp, availmon.StatusUp, availmon.StatusDown, availmon.StatusUnavailable}[p.rng.IntN(4)]
	}
}

func (p *propRun) script() {
	for i, a := range propApps {
		p.src.Set(a.name, availmon.Result{Status: p.last[i]})
	}
}

// step lets half an interval pass, maybe changes the windows there, then
// runs the next cycle (now and then after a gap, or in a new Monitor).
func (p *propRun) step() {
	p.clock.Advance(propInterval / 2)
	if p.rng.IntN(6) == 0 {
		p.addWindow()
	}
	if p.rng.IntN(12) == 0 {
		p.deleteWindow()
	}
	gap := time.Duration(0)
	if p.rng.IntN(8) == 0 {
		gap = time.Duration(1+p.rng.IntN(4)) * propInterval
	}
	if p.rng.IntN(10) == 0 {
		p.stop()
		p.clock.Advance(propInterval/2 + gap)
		p.start()
		return
	}
	p.clock.Advance(propInterval/2 + gap)
	p.cycled()
}

func (p *propRun) addWindow() {
	now := p.clock.Now()
	from := now.Add(time.Duration(p.rng.IntN(2400)-1500) * time.Second)
	to := from.Add(time.Duration(60+p.rng.IntN(1500)) * time.Second)
	if !to.After(now) {
		to = now.Add(time.Duration(1+p.rng.IntN(300)) * time.Second)
	}
	w := &propWindow{from: from, to: to, posted: now}
	var target string
	switch k := p.rng.IntN(8); {
	case k < 5:
		ai := p.rng.IntN(len(propApps))
		target, w.apps = `"app":"`+propApps[ai].name+`"`, []int{ai}
	case k < 7:
		target, w.apps = `"location":"L1"`, []int{0, 1}
	default:
		target, w.apps = `"service":"svc"`, []int{0, 1, 2}
	}
	body := `{` + target + `,"from":"` + from.Format(time.RFC3339) + `","to":"` + to.Format(time.RFC3339) + `"}`
	rec := p.serve(http.MethodPost, "/api/maintenance", body)
	if rec.Code != http.StatusCreated {
		p.t.Fatalf("POST /api/maintenance %s: %d %s", body, rec.Code, rec.Body)
	}
	var resp struct{ Data struct{ ID string } }
	if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil {
		p.t.Fatal(err)
	}
	w.id = resp.Data.ID
	p.windows = append(p.windows, w)
}

// deleteWindow deletes a window, maybe one posted since the last cycle,
// which no cycle has seen.
func (p *propRun) deleteWindow() {
	var live []*propWindow
	for _, w := range p.windows {
		if w.deleted.IsZero() {
			live = append(live, w)
		}
	}
	if len(live) == 0 {
		return
	}
	w := live[p.rng.IntN(len(live))]
	if rec := p.serve(http.MethodDelete, "/api/maintenance/"+w.id, ""); rec.Code != http.StatusOK {
		p.t.Fatalf("DELETE %s: %d %s", w.id, rec.Code, rec.Body)
	}
	w.deleted = p.clock.Now()
}

func (p *propRun) serve(method, target, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	p.h.ServeHTTP(rec, req)
	return rec
}

func (p *propRun) get(target string, v any) {
	p.t.Helper()
	rec := p.serve(http.MethodGet, target, "")
	if rec.Code != http.StatusOK {
		p.t.Fatalf("GET %s: %d %s", target, rec.Code, rec.Body)
	}
	if err := json.Unmarshal(rec.Body.Bytes(), v); err != nil {
		p.t.Fatalf("GET %s: %v", target, err)
	}
}

// compare asks the monitor for every app's, location's and service's
// figures and outages over a few ranges and compares them with the model.
func (p *propRun) compare() {
	m := p.model()
	now := p.cycles[len(p.cycles)-1]
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		p.t.Fatal(err)
	}
	dayB := time.Date(2026, 3, 29, 0, 0, 0, 0, berlin)
	ranges := []struct {
		query    string
		from, to time.Time
	}{
		{"window=1h", now.Add(-time.Hour), now},
		{"window=6h", now.Add(-6 * time.Hour), now},
		{"period=2026-03-29&tz=Europe/Berlin", dayB, now},
		{"period=2026-03-28", time.Date(2026, 3, 28, 0, 0, 0, 0, time.UTC), propStart},
	}
	for _, r := range ranges {
		for _, by := range []string{"app", "location", "service"} {
			var resp struct{ Data struct{ Items []WireFigures } }
			p.get("/api/availability?"+r.query+"&by="+by, &resp)
			got := map[string]WireFigures{}
			for _, it := range resp.Data.Items {
				got[it.Name] = it
			}
			want := m.figures(by, r.from.Unix(), r.to.Unix())
			if d := cmp.Diff(want, got, figuresCmp); d != "" {
				p.t.Errorf("%s by=%s (-model +monitor):\n%s", r.query, by, d)
			}
		}
	}
	from := now.Add(-6 * time.Hour)
	for kind, names := range map[string][]string{"apps": {"a", "b", "c"}, "locations": {"L1", "L2"}, "services": {"svc"}} {
		for _, name := range names {
			var resp struct {
				Data struct{ Outages []WireOutage }
			}
			p.get("/api/"+kind+"/"+name+"/outages?from="+url.QueryEscape(from.Format(time.RFC3339))+
				"&to="+url.QueryEscape(now.Format(time.RFC3339)), &resp)
			want := m.series[name].outages(from.Unix(), now.Unix())
			if d := cmp.Diff(want, resp.Data.Outages, outageCmp, cmpopts.EquateEmpty()); d != "" {
				p.t.Errorf("outages of %s %s (-model +monitor):\n%s", kind, name, d)
			}
		}
	}
}

// WireFigures is an item of /api/availability.
type WireFigures struct {
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

// WireOutage is an outage of the outages endpoints.
type WireOutage struct {
	Start       time.Time  `json:"start"`
	End         *time.Time `json:"end"`
	Ongoing     bool       `json:"ongoing"`
	Duration    int64      `json:"duration_seconds"`
	Maintenance bool       `json:"maintenance"`
}

// The monitor rounds percentages to four decimals.
var (
	figuresCmp = cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) <= 0.00006 })
	outageCmp  = cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })
)

// A window posted with its start in the past and deleted before the next
// cycle: its time from its start to the deletion stays maintenance, as the
// definitions say ("a one-off window whole, its past included"; "a window
// deleted through the API is unmarked from the time it was deleted").
func TestWindowDeletedBeforeACycle(t *testing.T) {
	p := newPropRun(t, rand.New(rand.NewPCG(1, 1)))
	for range 10 {
		p.clock.Advance(propInterval)
		p.cycled()
	}
	p.clock.Advance(propInterval / 2)
	now := p.clock.Now()
	w := &propWindow{apps: []int{0}, from: now.Add(-5 * time.Minute), to: now.Add(5 * time.Minute), posted: now}
	rec := p.serve(http.MethodPost, "/api/maintenance", `{"app":"a","from":"`+w.from.Format(time.RFC3339)+`","to":"`+w.to.Format(time.RFC3339)+`"}`)
	if rec.Code != http.StatusCreated {
		t.Fatalf("POST: %d %s", rec.Code, rec.Body)
	}
	var resp struct{ Data struct{ ID string } }
	if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil {
		t.Fatal(err)
	}
	w.id = resp.Data.ID
	p.windows = append(p.windows, w)
	if rec := p.serve(http.MethodDelete, "/api/maintenance/"+w.id, ""); rec.Code != http.StatusOK {
		t.Fatalf("DELETE: %d %s", rec.Code, rec.Body)
	}
	w.deleted = now
	p.clock.Advance(propInterval / 2)
	p.cycled()
	var got struct{ Data struct{ Items []WireFigures } }
	p.get("/api/availability?window=1h", &got)
	for _, it := range got.Data.Items {
		if it.Name == "a" && it.Maintenance != 300 {
			t.Errorf("a has %d s of maintenance; want 300, [deletion-5m, deletion)", it.Maintenance)
		}
	}
}
