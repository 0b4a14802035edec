package availmon

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/availmon/availmon/internal/backfill"
	"github.com/availmon/availmon/internal/ledger"
	"github.com/availmon/availmon/timeline"
)

// pastTruth is an app's scripted past: from each change on, its state
// (Unknown for no data) until the next change.
type pastTruth []timeline.Span

func (p pastTruth) at(t time.Time) timeline.State {
	for _, s := range p {
		if !t.Before(s.From) && t.Before(s.To) {
			return s.State
		}
	}
	return timeline.Unknown
}

// scriptedPast is a source whose apps' past is scripted per app, and which
// tells it as a PastStater: each window's instants counted from the
// script. It records every range it is asked, and fails the next failN
// requests.
type scriptedPast struct {
	*fakeSource
	truth map[string]pastTruth

	mu    sync.Mutex
	asked []PastRange
	fails int
	// maxSamples, when set, refuses a question of more app-instants, in
	// Prometheus's words when query.max-samples refuses one.
	maxSamples int
	// during, when set, is called with each States question's context
	// before it is answered; false leaves it unanswered (ctx's error).
	during func(ctx context.Context, r PastRange) bool
	// refuse, when set, is the error of a States question it refuses.
	refuse func(r PastRange) error
}

func newScriptedPast(truth map[string]pastTruth) *scriptedPast {
	return &scriptedPast{fakeSource: newFakeSource(), truth: truth}
}

func (s *scriptedPast) failNext(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fails = n
}

func (s *scriptedPast) requests() []PastRange {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.asked)
}

// request records r and says whether it fails.
func (s *scriptedPast) request(r PastRange) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asked = append(s.asked, r)
	if s.fails > 0 {
		s.fails--
		return errors.New("scripted backend failure")
	}
	return nil
}

func (s *scriptedPast) PlanPast(apps []App) []PastQuery {
	return []PastQuery{&scriptedQuery{s: s, apps: slices.Clone(apps)}}
}

type scriptedQuery struct {
	s    *scriptedPast
	apps []App
}

func (q *scriptedQuery) MaxSteps() int { return 11_000 }

func (q *scriptedQuery) Probe(ctx context.Context, r PastRange) (time.Time, bool, error) {
	if err := q.s.request(r); err != nil {
		return time.Time{}, false, err
	}
	for t := r.Start; !t.After(r.End); t = t.Add(r.Step) {
		for _, a := range q.apps {
			if q.s.truth[a.Name].at(t) != timeline.Unknown {
				return t, true, nil
			}
		}
	}
	return time.Time{}, false, nil
}

func (q *scriptedQuery) Counts(context.Context, PastRange, func(PastCount)) error { return nil }
func (q *scriptedQuery) Hours(context.Context, PastRange, func(PastCount)) error  { return nil }

func (q *scriptedQuery) States(ctx context.Context, r PastRange, add func(PastState)) error {
	if err := q.s.request(r); err != nil {
		return err
	}
	if q.s.during != nil && !q.s.during(ctx, r) {
		return ctx.Err()
	}
	if q.s.refuse != nil {
		if err := q.s.refuse(r); err != nil {
			return err
		}
	}
	apps := r.Apps
	if apps == nil {
		for i := range q.apps {
			apps = append(apps, i)
		}
	}
	samples := len(apps) * (int(r.End.Sub(r.Start)/r.Step) + 1) * int(r.Window/r.Resolution)
	if q.s.maxSamples > 0 && samples > q.s.maxSamples {
		return errors.New("execution: query processing would load too many samples into memory in query execution")
	}
	for at := r.Start; !at.After(r.End); at = at.Add(r.Step) {
		for _, i := range apps {
			add(countInstants(q.s.truth[q.apps[i].Name], i, at, r.Window, r.Resolution))
		}
	}
	return nil
}

// countInstants reads truth at the instants of [at, at+window) res apart.
func countInstants(truth pastTruth, app int, at time.Time, window, res time.Duration) PastState {
	st := PastState{App: app, At: at, Window: window}
	for t := at; t.Before(at.Add(window)); t = t.Add(res) {
		st.Instants++
		switch truth.at(t) {
		case timeline.Up:
			st.Present++
		case timeline.Down:
			st.Present++
			st.Down++
		}
	}
	return st
}

// recordOf is app's record over [from, to) as spans of one known state,
// maintenance left aside.
func recordOf(tm *testMonitor, app string, from, to time.Time) []timeline.Span {
	tm.cycleMu.Lock()
	defer tm.cycleMu.Unlock()
	b := tm.ledger.Book(tm.clock.Now())
	i, ok := b.Lookup(ledger.App, app)
	if !ok {
		return nil
	}
	var out []timeline.Span
	b.View(ledger.App, i).Walk(from, to, func(s timeline.Span, _ bool) {
		if s.State == timeline.Unknown {
			return
		}
		if n := len(out); n > 0 && out[n-1].State == s.State && out[n-1].To.Equal(s.From) {
			out[n-1].To = s.To
			return
		}
		out = append(out, s)
	})
	return out
}

// pastMonitor is a test monitor at now whose backend tells truth.
func pastMonitor(t *testing.T, now time.Time, truth map[string]pastTruth, opts ...func(*Options)) (*testMonitor, *scriptedPast) {
	t.Helper()
	src := newScriptedPast(truth)
	tm := newTestMonitor(t, func(o *Options) {
		o.Backends = []Backend{{Name: "main", URL: testPromURL, Source: src, BatchSize: 10}}
		o.Backfill = true // the tests call backfillRecord themselves; its status is shown only with it
		for _, opt := range opts {
			opt(o)
		}
	})
	tm.clock.Set(now)
	return tm, src
}

// backfillDays is the past the backfill tests script: ten days before t0.
const backfillDays = 10

func upSince(start, end time.Time, downs ...timeline.Span) pastTruth {
	out := pastTruth{}
	at := start
	for _, d := range downs {
		out = append(out, timeline.Span{From: at, To: d.From, State: timeline.Up}, d)
		at = d.To
	}
	return append(out, timeline.Span{From: at, To: end, State: timeline.Up})
}

// A day in which one app went down for 25 minutes is asked again, for that
// app only, by hours and then by minutes; the record holds the outage to
// the minute, time without data stays unknown, and the other apps' days
// cost one question each.
func TestBackfillStatesRefinesMixedDay(t *testing.T) {
	start := t0.Add(-backfillDays * 24 * time.Hour).Truncate(24 * time.Hour)
	d := t0.Add(-3 * 24 * time.Hour).Truncate(24 * time.Hour)
	down := timeline.Span{From: d.Add(3*time.Hour + 17*time.Minute), To: d.Add(3*time.Hour + 42*time.Minute), State: timeline.Down}
	gap := [2]time.Time{d.Add(5 * time.Hour), d.Add(7 * time.Hour)}
	truth := map[string]pastTruth{
		"checkout": upSince(start, t0.Add(time.Hour), down),
		"search": {{From: start, To: gap[0], State: timeline.Up},
			{From: gap[1], To: t0.Add(time.Hour), State: timeline.Up}},
		"billing": upSince(start, t0.Add(time.Hour)),
	}
	tm, src := pastMonitor(t, t0, truth)
	tm.backfillRecord(waitCtx(t))

	to := t0.Truncate(time.Minute)
	want := map[string][]timeline.Span{
		"checkout": {{From: start, To: down.From, State: timeline.Up}, down, {From: down.To, To: to, State: timeline.Up}},
		"search":   {{From: start, To: gap[0], State: timeline.Up}, {From: gap[1], To: to, State: timeline.Up}},
		"billing":  {{From: start, To: to, State: timeline.Up}},
	}
	for app, w := range want {
		if diff := cmp.Diff(w, recordOf(tm, app, start.Add(-24*time.Hour), to)); diff != "" {
			t.Errorf("%s's record (-want +got):\n%s", app, diff)
		}
	}
	asked := src.requests()
	if len(asked) > 12 {
		t.Errorf("%d requests for 10 days of 3 apps with one outage and one gap: %+v", len(asked), asked)
	}
	idx := map[string]int{}
	for i, a := range tm.plan.apps {
		idx[a.Name] = i
	}
	for _, r := range asked[1:] { // the first is the probe
		if r.Window < 24*time.Hour && slices.Contains(r.Apps, idx["billing"]) {
			t.Errorf("billing, up all along, asked about %s windows: %+v", r.Window, r)
		}
		if r.Window == time.Minute && !slices.Equal(r.Apps, []int{idx["checkout"]}) &&
			!slices.Equal(r.Apps, []int{idx["checkout"], idx["search"]}) {
			t.Errorf("minute question about %v, want checkout (and the end's partial hour)", r.Apps)
		}
	}
	if st := tm.bf.status(); st.State != "done" || st.Progress != 1 || st.AppsDone != 3 {
		t.Errorf("status after the backfill: %+v", st)
	}
}

// A long past is asked in questions Prometheus answers, whatever the
// resolution: a question reads at most backfill.AppInstants app-instants,
// every app of the backend counted in one of every app (at a second's
// resolution, a week of them in one question of 200 apps would be 240
// million samples, which Prometheus refuses, query.max-samples 50
// million, for ever).
func TestBackfillStatesQuestionsWithinSamples(t *testing.T) {
	start := t0.Add(-20 * 24 * time.Hour).Truncate(24 * time.Hour)
	var downs []timeline.Span
	for d := start.Add(3 * time.Hour); d.Before(t0); d = d.Add(24 * time.Hour) {
		downs = append(downs, timeline.Span{From: d, To: d.Add(time.Hour), State: timeline.Down})
	}
	truth := map[string]pastTruth{"checkout": upSince(start, t0.Add(time.Hour), downs...),
		"search": upSince(start, t0.Add(time.Hour)), "billing": upSince(start, t0.Add(time.Hour))}
	tm, src := pastMonitor(t, t0, truth, func(o *Options) { o.Interval = time.Second })
	// Twenty days at a second's resolution take the fake source seconds to
	// count, many more under -race on a loaded machine than waitCtx's ten.
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	tm.backfillRecord(ctx)
	want := slices.Clone(truth["checkout"])
	want[len(want)-1].To = t0.Truncate(time.Minute)
	if diff := cmp.Diff([]timeline.Span(want), recordOf(tm, "checkout", start, t0)); diff != "" {
		t.Errorf("checkout's record (-want +got):\n%s", diff)
	}
	for _, r := range src.requests()[1:] { // the first is the probe
		instants := (int(r.End.Sub(r.Start)/r.Step) + 1) * int(r.Window/r.Resolution)
		apps := len(r.Apps)
		if r.Apps == nil {
			apps = len(truth)
		}
		if apps*instants > backfill.AppInstants {
			t.Errorf("a question reads %d instants of each of its apps (%v), over the bound: %+v", instants, r.Apps, r)
		}
	}
}

// A backend that refuses questions as too large (Prometheus's
// query.max-samples) is asked them in parts, fewer apps or fewer days,
// down to a single day of every app asked by hours, instead of the same
// question for ever; the refusal is logged once, and the record is
// filled as a backend without the limit fills it.
func TestBackfillStatesSplitsRefusedQuestions(t *testing.T) {
	start, down, truth := threeAppsPast()
	var log bytes.Buffer
	tm, src := pastMonitor(t, t0, truth, func(o *Options) { o.Logger = slog.New(slog.NewTextHandler(&log, nil)) })
	// Less than a day of the three apps: the day level's questions are
	// refused down to single days, which are asked by hours.
	src.maxSamples = 2 * 1440
	tm.backfillRecord(waitCtx(t))
	if st := tm.bf.status(); st.State != "done" {
		t.Fatalf("state %q after the backfill", st.State)
	}
	want := []timeline.Span{{From: start, To: down.From, State: timeline.Up}, down, {From: down.To, To: t0, State: timeline.Up}}
	if diff := cmp.Diff(want, recordOf(tm, "checkout", start, t0)); diff != "" {
		t.Errorf("checkout's record (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]timeline.Span{{From: start, To: t0, State: timeline.Up}}, recordOf(tm, "search", start, t0)); diff != "" {
		t.Errorf("search's record (-want +got):\n%s", diff)
	}
	refused, asked := 0, map[string]bool{}
	for _, r := range src.requests()[1:] { // the first is the probe
		apps := len(r.Apps)
		if r.Apps == nil {
			apps = 3
		}
		if apps*(int(r.End.Sub(r.Start)/r.Step)+1)*int(r.Window/r.Resolution) > src.maxSamples {
			refused++
		}
		if k := fmt.Sprint(r); asked[k] {
			t.Errorf("asked twice: %+v", r)
		} else {
			asked[k] = true
		}
	}
	if refused == 0 {
		t.Errorf("no question refused of %d: the test tests nothing", len(asked))
	}
	if n := strings.Count(log.String(), "too large"); n != 1 {
		t.Errorf("the refusal logged %d times, want once:\n%s", n, log.String())
	}
}

// A question a cycle interrupts is asked again in halves, not whole (asked
// whole again it would be interrupted again by the next cycle, and the
// next), and the record is exact.
func TestBackfillStatesInterruptedQuestionAskedInHalves(t *testing.T) {
	start, down, truth := threeAppsPast()
	tm, src := pastMonitor(t, t0, truth)
	var first *PastRange
	src.during = func(ctx context.Context, r PastRange) bool {
		if first != nil {
			return true
		}
		first = &r
		tm.cycles.Begin() // a cycle begins while the question runs
		<-ctx.Done()
		tm.cycles.End()
		return false
	}
	tm.backfillRecord(waitCtx(t))
	if first == nil || first.Start.Equal(first.End) {
		t.Fatalf("the interrupted question %+v has no halves: the test tests nothing", first)
	}
	want := []timeline.Span{{From: start, To: down.From, State: timeline.Up}, down, {From: down.To, To: t0, State: timeline.Up}}
	if diff := cmp.Diff(want, recordOf(tm, "checkout", start, t0)); diff != "" {
		t.Errorf("checkout's record (-want +got):\n%s", diff)
	}
	reqs := src.requests()[1:] // the first is the probe
	i := slices.IndexFunc(reqs, func(r PastRange) bool { return fmt.Sprint(r) == fmt.Sprint(*first) })
	if rest := reqs[i+1:]; len(rest) < 2 || slices.ContainsFunc(rest, func(r PastRange) bool { return fmt.Sprint(r) == fmt.Sprint(*first) }) ||
		!rest[0].Start.Equal(first.Start) || !rest[1].End.Equal(first.End) || !rest[0].End.Before(rest[1].Start) {
		t.Errorf("after the interrupted %+v, asked %+v; want its halves", *first, rest)
	}
}

// A backend that fails is asked again with backoff (the status says
// waiting meanwhile), and the backfill then completes as if it had not
// failed.
func TestBackfillStatesRetriesFailingBackend(t *testing.T) {
	start := t0.Add(-backfillDays * 24 * time.Hour)
	down := timeline.Span{From: t0.Add(-50 * time.Hour), To: t0.Add(-49 * time.Hour), State: timeline.Down}
	truth := map[string]pastTruth{"checkout": upSince(start, t0, down), "search": upSince(start, t0), "billing": upSince(start, t0)}
	tm, src := pastMonitor(t, t0, truth)
	src.failNext(2) // both tries of the probe
	done := make(chan struct{})
	go func() {
		defer close(done)
		tm.backfillRecord(waitCtx(t))
	}()
	waitFor(t, "the backfill to wait after the failure", func() bool {
		return tm.bf.status().State == "waiting" && tm.clock.Timers() > 0
	})
	tm.clock.Advance(BackfillRetryMin) // the first retry's wait
	<-done
	if st := tm.bf.status(); st.State != "done" {
		t.Fatalf("state %q after the backend recovered", st.State)
	}
	got := recordOf(tm, "checkout", start, t0)
	want := []timeline.Span{{From: start, To: down.From, State: timeline.Up}, down, {From: down.To, To: t0, State: timeline.Up}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("checkout after the retry (-want +got):\n%s", diff)
	}
}

// Two monitors backfilling the same past ask the same questions and get
// identical records, partial minutes and the end's partial day included.
func TestBackfillStatesTwoMonitorsAgree(t *testing.T) {
	start := t0.Add(-backfillDays*24*time.Hour + 17*time.Minute + 30*time.Second) // data begins mid-minute
	now := t0.Add(7*time.Minute + 20*time.Second)
	truth := map[string]pastTruth{
		"checkout": upSince(start, now,
			timeline.Span{From: t0.Add(-70*time.Hour + 15*time.Second), To: t0.Add(-70*time.Hour + 3*time.Minute), State: timeline.Down},
			timeline.Span{From: t0.Add(-2 * time.Minute), To: t0.Add(2 * time.Minute), State: timeline.Down}),
		"search":  upSince(start, now),
		"billing": {{From: start, To: t0.Add(-5 * time.Hour), State: timeline.Down}},
	}
	var records [2]map[string][]timeline.Span
	var asked [2][]PastRange
	for k := range records {
		tm, src := pastMonitor(t, now, truth)
		tm.backfillRecord(waitCtx(t))
		records[k] = map[string][]timeline.Span{}
		for _, app := range []string{"checkout", "search", "billing"} {
			records[k][app] = recordOf(tm, app, start.Add(-time.Hour), now)
		}
		asked[k] = src.requests()
	}
	if diff := cmp.Diff(records[0], records[1]); diff != "" {
		t.Errorf("two monitors' records differ (-first +second):\n%s", diff)
	}
	if diff := cmp.Diff(asked[0], asked[1]); diff != "" {
		t.Errorf("two monitors asked differently (-first +second):\n%s", diff)
	}
	c := records[0]["checkout"]
	// The down time begins at the first instant (the interval, 30 s, apart)
	// that read it.
	if len(c) != 5 || c[1].State != timeline.Down || !c[1].From.Equal(t0.Add(-70*time.Hour+30*time.Second)) {
		t.Errorf("checkout's record: %+v", c)
	}
	if b := records[0]["billing"]; len(b) != 1 || b[0].State != timeline.Down || !b[0].To.Equal(t0.Add(-5*time.Hour)) {
		t.Errorf("billing's record: %+v, want down until its data ends", b)
	}
}

// Time a cycle observed is never overwritten by the backfill, even where
// the backend says otherwise.
func TestBackfillStatesKeepsObservedTime(t *testing.T) {
	start := t0.Add(-backfillDays * 24 * time.Hour)
	seen := t0.Add(-2 * time.Hour)
	down := timeline.Span{From: seen.Add(-time.Hour), To: t0, State: timeline.Down}
	truth := map[string]pastTruth{"checkout": upSince(start, t0, down), "search": upSince(start, t0), "billing": upSince(start, t0)}
	tm, src := pastMonitor(t, seen, truth)
	for _, a := range []string{"checkout", "search", "billing"} {
		src.Set(a, StatusUp, time.Millisecond)
	}
	tm.scrape(t)
	observed := recordOf(tm, "checkout", seen, t0)
	if len(observed) != 1 || observed[0].State != timeline.Up {
		t.Fatalf("observed record: %+v", observed)
	}
	tm.clock.Set(t0)
	tm.backfillRecord(waitCtx(t))
	got := recordOf(tm, "checkout", start, t0)
	want := []timeline.Span{{From: start, To: down.From, State: timeline.Up},
		{From: down.From, To: seen, State: timeline.Down}, observed[0],
		{From: observed[0].To, To: t0, State: timeline.Down}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("checkout (-want +got):\n%s", diff)
	}
}

// Maintenance windows, from the configuration and the API, one-off and
// recurring, apply to backfilled time as to live time: an app down all
// through a backfilled day is in maintenance during each window's
// occurrences there, and down only outside them.
func TestBackfillStatesMaintenance(t *testing.T) {
	day := 24 * time.Hour
	start := t0.Add(-backfillDays * day).Truncate(day)
	d := t0.Add(-3 * day).Truncate(day)
	downDay := timeline.Span{From: d, To: d.Add(day), State: timeline.Down}
	truth := map[string]pastTruth{"checkout": upSince(start, t0, downDay), "search": upSince(start, t0, downDay),
		"billing": upSince(start, t0, downDay)}
	src := newScriptedPast(truth)
	tm := newTestMonitor(t, openWrites, func(o *Options) {
		o.Backends = []Backend{{Name: "main", URL: testPromURL, Source: src, BatchSize: 10}}
		o.Maintenance = []MaintenanceWindow{{App: "checkout", Cron: "0 3 * * *", Duration: time.Hour}}
	})
	for _, a := range []string{"checkout", "search", "billing"} {
		src.Set(a, StatusUp, time.Millisecond)
	}
	for _, body := range []string{
		`{"app":"search","cron":"30 5 * * *","duration":"2h"}`,
		fmt.Sprintf(`{"app":"billing","from":%q,"to":%q}`, d.Add(20*time.Hour).Format(time.RFC3339),
			d.Add(22*time.Hour).Format(time.RFC3339)),
	} {
		if rec := do(t, tm.h, http.MethodPost, "/api/maintenance", body, nil); rec.Code != http.StatusCreated {
			t.Fatalf("POST %s: %d %s", body, rec.Code, rec.Body)
		}
	}
	tm.scrape(t) // the cycle marks the windows
	tm.backfillRecord(waitCtx(t))
	tm.cycleMu.Lock()
	b := tm.ledger.Book(t0)
	tm.cycleMu.Unlock()
	for app, inMaint := range map[string]time.Duration{"checkout": time.Hour, "search": 2 * time.Hour, "billing": 2 * time.Hour} {
		i, _ := b.Lookup(ledger.App, app)
		got := b.App(i, ledger.Query{From: d, To: d.Add(day)}).Totals
		want := timeline.Totals{Down: day - inMaint, Maintenance: inMaint}
		if got.Down != want.Down || got.Maintenance != want.Maintenance || got.Up != 0 {
			t.Errorf("%s over its backfilled down day: %+v, want down %s, maintenance %s", app, got, want.Down, want.Maintenance)
		}
	}
}

// A record with no unknown day asks nothing: no plan, no probe.
func TestBackfillStatesNothingUnknownAsksNothing(t *testing.T) {
	start := t0.Add(-backfillDays * 24 * time.Hour)
	truth := map[string]pastTruth{"checkout": upSince(start, t0), "search": upSince(start, t0), "billing": upSince(start, t0)}
	tm, src := pastMonitor(t, t0, truth, func(o *Options) { o.Retention = 2 * 24 * time.Hour })
	tm.backfillRecord(waitCtx(t))
	if got := recordOf(tm, "search", t0.Add(-72*time.Hour).Truncate(24*time.Hour), t0); len(got) != 1 || got[0].State != timeline.Up {
		t.Fatalf("search's record after the first backfill: %+v", got)
	}
	asked := len(src.requests())
	tm.backfillRecord(waitCtx(t))
	if n := len(src.requests()); n != asked {
		t.Errorf("a backfill of a record with no unknown day sent %d requests: %+v", n-asked, src.requests()[asked:])
	}
	if st := tm.bf.status(); st.State != "done" || st.Progress != 1 {
		t.Errorf("status %+v, want done", st)
	}
}

// threeAppsPast is the past of the record's splitting tests: checkout,
// search and billing up for the backfill's days before t0, but checkout
// down for 77 minutes about two days before.
func threeAppsPast() (start time.Time, down timeline.Span, truth map[string]pastTruth) {
	start = t0.Add(-backfillDays * 24 * time.Hour)
	down = timeline.Span{From: t0.Add(-50*time.Hour - 17*time.Minute), To: t0.Add(-49 * time.Hour), State: timeline.Down}
	truth = map[string]pastTruth{"checkout": upSince(start, t0, down), "search": upSince(start, t0), "billing": upSince(start, t0)}
	return start, down, truth
}
