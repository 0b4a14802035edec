package availmon_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/model"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/hmac"
)

// upSource says every app is up; the examples below add one capability
// each.
type upSource struct{}

func (upSource) Check(ctx context.Context, apps []availmon.App) ([]availmon.Result, error) {
	out := make([]availmon.Result, len(apps))
	for i := range out {
		out[i].Status = availmon.StatusUp
	}
	return out, nil
}

var oneLocation = []availmon.Location{{Name: "Tel Aviv", Latitude: 32.0853, Longitude: 34.7818}}

// strictSource refuses an app without a metric when the monitor is made.
type strictSource struct{ upSource }

func (strictSource) ValidateApp(a availmon.App) error {
	if a.Metric == "" {
		return errors.New("metric is empty")
	}
	return nil
}

// A source that can tell a bad app refuses it at New, beside the other
// problems of the options.
func ExampleAppValidator() {
	_, err := availmon.New(availmon.Options{
		Locations: oneLocation,
		Apps:      []availmon.App{{Name: "checkout", Location: "Tel Aviv"}},
		Source:    strictSource{},
	})
	fmt.Println(err)
	// Output: availmon: invalid options: app "checkout": metric is empty
}

// teamSource checks the apps of one team in one call, and records the
// calls.
type teamSource struct {
	mu    sync.Mutex
	calls []string
}

func (s *teamSource) PlanBatches(apps []availmon.App, maxBatch int) [][]int {
	byTeam := map[string][]int{}
	var teams []string
	for i, a := range apps {
		t := a.Labels["team"]
		if _, ok := byTeam[t]; !ok {
			teams = append(teams, t)
		}
		byTeam[t] = append(byTeam[t], i)
	}
	var out [][]int
	for _, t := range teams {
		out = append(out, byTeam[t])
	}
	return out
}

func (s *teamSource) Check(ctx context.Context, apps []availmon.App) ([]availmon.Result, error) {
	var names []string
	for _, a := range apps {
		names = append(names, a.Name)
	}
	s.mu.Lock()
	s.calls = append(s.calls, strings.Join(names, " "))
	s.mu.Unlock()
	return upSource{}.Check(ctx, apps)
}

// A source that chooses which apps share a Check call gets the batches it
// planned, each cycle.
func ExampleBatchPlanner() {
	src := &teamSource{}
	team := func(t string) map[string]string { return map[string]string{"team": t} }
	m, err := availmon.New(availmon.Options{
		Locations: oneLocation,
		Apps: []availmon.App{
			{Name: "cart", Location: "Tel Aviv", Labels: team("shop")},
			{Name: "login", Location: "Tel Aviv", Labels: team("identity")},
			{Name: "pay", Location: "Tel Aviv", Labels: team("shop")},
		},
		Backends: []availmon.Backend{{Name: "main", Source: src, BatchSize: 10}},
	})
	if err != nil {
		panic(err)
	}
	if err := m.Scrape(context.Background()); err != nil {
		panic(err)
	}
	slices.Sort(src.calls)
	fmt.Println(strings.Join(src.calls, "; "))
	// Output: cart pay; login
}

// seriesSource answers a discovery rule's query with two series.
type seriesSource struct{ upSource }

func (seriesSource) Instant(ctx context.Context, query string) (model.Vector, time.Duration, error) {
	return model.Vector{
		{Metric: model.Metric{"__name__": "up", "job": "cart", "site": "tlv"}, Value: 1},
		{Metric: model.Metric{"__name__": "up", "job": "search", "site": "tlv"}, Value: 0},
	}, time.Millisecond, nil
}

// A source that answers one query can back discovery rules: each series
// becomes an app, named by the rule's template.
func ExampleInstantQuerier() {
	m, err := availmon.New(availmon.Options{
		Locations: []availmon.Location{{Name: "Tel Aviv", Match: []string{"tlv"}}},
		Source:    seriesSource{},
		Discover: []availmon.DiscoveryRule{{
			Name: "jobs", Query: "up", AppName: "{{ .job }}", LocationLabel: "site",
		}},
	})
	if err != nil {
		panic(err)
	}
	if err := m.Scrape(context.Background()); err != nil {
		panic(err)
	}
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/apps", nil))
	var apps struct {
		Data []struct {
			Name, Status, Metric string
		} `json:"data"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &apps); err != nil {
		panic(err)
	}
	for _, a := range apps.Data {
		fmt.Println(a.Name, a.Status, a.Metric)
	}
	// Output:
	// cart up up{job="cart", site="tlv"}
	// search down up{job="search", site="tlv"}
}

// twoRequestSource makes two requests to its backend per Check, and says
// so.
type twoRequestSource struct{ upSource }

func (twoRequestSource) ReportsRequests() bool { return true }

func (s twoRequestSource) Check(ctx context.Context, apps []availmon.App) ([]availmon.Result, error) {
	availmon.ReportRequest(ctx, 10*time.Millisecond, nil)
	availmon.ReportRequest(ctx, 20*time.Millisecond, errors.New("HTTP status 502 Bad Gateway"))
	return s.upSource.Check(ctx, apps)
}

// A source that reports its requests has each counted in the scrape
// metrics, rather than each Check call.
func ExampleRequestReporter() {
	reg := prometheus.NewRegistry()
	m, err := availmon.New(availmon.Options{
		Locations:  oneLocation,
		Apps:       []availmon.App{{Name: "checkout", Location: "Tel Aviv"}},
		Source:     twoRequestSource{},
		Registerer: reg,
	})
	if err != nil {
		panic(err)
	}
	if err := m.Scrape(context.Background()); err != nil {
		panic(err)
	}
	mfs, err := reg.Gather()
	if err != nil {
		panic(err)
	}
	for _, mf := range mfs {
		switch mf.GetName() {
		case "availmon_scrape_duration_seconds":
			fmt.Println("requests:", mf.GetMetric()[0].GetHistogram().GetSampleCount())
		case "availmon_scrape_errors_total":
			fmt.Println("failed:", mf.GetMetric()[0].GetCounter().GetValue())
		}
	}
	// Output:
	// requests: 2
	// failed: 1
}

// pastSource remembers every app up, and records what it was asked.
type pastSource struct {
	upSource
	mu    sync.Mutex
	asked []string
}

func (s *pastSource) PlanPast(apps []availmon.App) []availmon.PastQuery {
	return []availmon.PastQuery{&allUp{s: s, apps: len(apps)}}
}

// allUp is one question over the past of every app of a pastSource.
type allUp struct {
	s    *pastSource
	apps int
}

func (q *allUp) note(what string) {
	q.s.mu.Lock()
	defer q.s.mu.Unlock()
	if n := len(q.s.asked); n == 0 || q.s.asked[n-1] != what {
		q.s.asked = append(q.s.asked, what)
	}
}

func (q *allUp) MaxSteps() int { return 1440 }

func (q *allUp) Probe(ctx context.Context, r availmon.PastRange) (time.Time, bool, error) {
	q.note("probe")
	return r.Start, true, nil
}

func (q *allUp) Counts(ctx context.Context, r availmon.PastRange, add func(availmon.PastCount)) error {
	q.note("counts")
	for t := r.Start; !t.After(r.End); t = t.Add(r.Step) {
		add(availmon.PastCount{App: -1, At: t, Up: q.apps})
	}
	return nil
}

func (q *allUp) Hours(ctx context.Context, r availmon.PastRange, add func(availmon.PastCount)) error {
	q.note("hours")
	for t := r.Start; !t.After(r.End); t = t.Add(r.Step) {
		for app := range q.apps {
			add(availmon.PastCount{App: app, At: t, Up: int(r.Window / time.Minute)})
		}
	}
	return nil
}

// doneHandler closes done when the backfill logs that it is done.
type doneHandler struct {
	slog.Handler
	done chan struct{}
}

func (h doneHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h doneHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == "backfill done" {
		close(h.done)
	}
	return nil
}

// A source that can tell the past fills, with Options.Backfill, the history
// no monitor observed: where its data begins, the last day per app, and
// each minute's counts.
func ExamplePastSource() {
	src := &pastSource{}
	done := make(chan struct{})
	m, err := availmon.New(availmon.Options{
		Locations: oneLocation,
		Apps:      []availmon.App{{Name: "checkout", Location: "Tel Aviv"}},
		Source:    src,
		Backfill:  true,
		Interval:  time.Hour,
		Logger:    slog.New(doneHandler{slog.DiscardHandler, done}),
	})
	if err != nil {
		panic(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error)
	go func() { stopped <- m.Run(ctx) }()
	<-done
	cancel()
	<-stopped
	fmt.Println(strings.Join(src.asked, ", "))
	// Output: probe, hours, counts
}

// memStore keeps the saved state in memory.
type memStore struct {
	mu   sync.Mutex
	data []byte
}

func (s *memStore) Load(ctx context.Context, decode func([]byte) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.data == nil {
		return nil
	}
	return decode(s.data)
}

func (s *memStore) Save(ctx context.Context, data []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.data = append([]byte(nil), data...)
	return nil
}

// keeper is an Authenticator that remembers one signature it refused.
type keeper struct{ entries []hmac.ReplayEntry }

func (k *keeper) Verify(r *http.Request) error            { return nil }
func (k *keeper) ReplayEntries() []hmac.ReplayEntry       { return k.entries }
func (k *keeper) RestoreReplay(es []hmac.ReplayEntry) int { k.entries = es; return len(es) }

// An Authenticator whose replay cache the Store keeps gets it back after a
// restart.
func ExampleReplayKeeper() {
	store := &memStore{}
	opts := func(auth availmon.Authenticator) availmon.Options {
		return availmon.Options{Locations: oneLocation, Source: upSource{}, Store: store, Authenticator: auth}
	}
	first := &keeper{entries: []hmac.ReplayEntry{{Expires: time.Now().Add(time.Hour)}}}
	m, err := availmon.New(opts(first))
	if err != nil {
		panic(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m.Run(ctx) // saves once more as it returns

	next := &keeper{}
	if _, err := availmon.New(opts(next)); err != nil {
		panic(err)
	}
	fmt.Println(len(next.entries))
	// Output: 1
}
