package availmon

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

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
	apps := r.Apps
	if apps == nil {
		for i := range q.apps {
			apps = append(apps, i)
		}
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
// resolution: one of every app of a query reads at most stateBudget
// instants of each (at a second's resolution, a week of them in one
// question of 200 apps would be 240 million samples, which Prometheus
// refuses, query.max-samples 50 million, for ever), one of some apps at
// most stateSamples of them all.
func TestBackfillStatesQuestionsWithinSamples(t *testing.T) {
	start := t0.Add(-20 * 24 * time.Hour).Truncate(24 * time.Hour)
	var downs []timeline.Span
	for d := start.Add(3 * time.Hour); d.Before(t0); d = d.Add(24 * time.Hour) {
		downs = append(downs, timeline.Span{From: d, To: d.Add(time.Hour), State: timeline.Down})
	}
	truth := map[string]pastTruth{"checkout": upSince(start, t0.Add(time.Hour), downs...),
		"search": upSince(start, t0.Add(time.Hour)), "billing": upSince(start, t0.Add(time.Hour))}
	tm, src := pastMonitor(t, t0, truth, func(o *Options) { o.Interval = time.Second })
	tm.backfillRecord(waitCtx(t))
	want := slices.Clone(truth["checkout"])
	want[len(want)-1].To = t0.Truncate(time.Minute)
	if diff := cmp.Diff([]timeline.Span(want), recordOf(tm, "checkout", start, t0)); diff != "" {
		t.Errorf("checkout's record (-want +got):\n%s", diff)
	}
	for _, r := range src.requests()[1:] { // the first is the probe
		instants := (int(r.End.Sub(r.Start)/r.Step) + 1) * int(r.Window/r.Resolution)
		if r.Apps == nil && instants > stateBudget || r.Apps != nil && len(r.Apps)*instants > stateSamples {
			t.Errorf("a question reads %d instants of each of its apps (%v), over the bound: %+v", instants, r.Apps, r)
		}
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
	tm.clock.Advance(backfillBackoff(0))
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

// take makes pure windows spans, mixed ones windows of the next level,
// and at the finest level lets the majority of present instants decide.
func TestStateAnswersTake(t *testing.T) {
	from, to := t0.Add(-24*time.Hour), t0
	a := &stateAnswers{from: from, to: to, spans: map[int][]timeline.Span{}, mixed: map[int64][]int{}}
	h := time.Hour
	a.take(PastState{App: 0, At: from, Instants: 60, Present: 60}, h, false)
	a.take(PastState{App: 0, At: from.Add(h), Instants: 60, Present: 60}, h, false)
	a.take(PastState{App: 1, At: from, Instants: 60, Present: 60, Down: 60}, h, false)
	a.take(PastState{App: 2, At: from, Instants: 60, Present: 0}, h, false)
	a.take(PastState{App: 3, At: from, Instants: 60, Present: 30}, h, false)
	a.take(PastState{App: 4, At: from, Instants: 60, Present: 60, Down: 1}, h, false)
	a.take(PastState{App: 5, At: from, Instants: 4, Present: 3, Down: 2}, time.Minute, true)
	a.take(PastState{App: 6, At: from, Instants: 4, Present: 1, Down: 0}, time.Minute, true)
	a.take(PastState{App: 7, At: to.Add(-30 * time.Minute), Instants: 60, Present: 60}, h, false)
	a.take(PastState{App: 8, At: from.Add(-h), Instants: 60, Present: 60}, h, false)
	want := map[int][]timeline.Span{
		0: {{From: from, To: from.Add(2 * h), State: timeline.Up}},
		1: {{From: from, To: from.Add(h), State: timeline.Down}},
		5: {{From: from, To: from.Add(time.Minute), State: timeline.Down}},
		7: {{From: to.Add(-30 * time.Minute), To: to, State: timeline.Up}},
	}
	if diff := cmp.Diff(want, a.spans); diff != "" {
		t.Errorf("spans (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[int64][]int{from.Unix(): {3, 4}}, a.mixed); diff != "" {
		t.Errorf("mixed (-want +got):\n%s", diff)
	}
}

// windowsIn cuts a range into aligned windows, the last one that reaches
// past the end set apart; childWindows cuts the mixed ones and those
// partial ones by the next level, inside the range.
func TestStateWindows(t *testing.T) {
	from, to := t0.Add(-36*time.Hour), t0.Add(30*time.Minute)
	whole, partial := windowsIn(from, to, 24*time.Hour, nil)
	if len(whole) != 1 || !whole[0].at.Equal(from) || len(partial) != 1 ||
		!partial[0].at.Equal(t0.Truncate(24*time.Hour)) {
		t.Fatalf("windowsIn: whole %+v partial %+v", whole, partial)
	}
	a := &stateAnswers{from: from, to: to, mixed: map[int64][]int{whole[0].at.Unix(): {2}}}
	out, part := a.childWindows(24*time.Hour, time.Hour, partial)
	if len(out) != 24+12 || len(part) != 1 || !part[0].at.Equal(t0) {
		t.Fatalf("childWindows: %d windows, partial %+v", len(out), part)
	}
	for _, w := range out[:24] {
		if !slices.Equal(w.apps, []int{2}) {
			t.Fatalf("a mixed day's hour asks %v", w.apps)
		}
	}
	for _, w := range out[24:] {
		if w.apps != nil {
			t.Fatalf("the partial day's hour asks %v, want every app", w.apps)
		}
	}
	if len(a.mixed) != 0 {
		t.Errorf("mixed windows left after childWindows: %v", a.mixed)
	}
}

// questions joins consecutive windows of the same kind into questions,
// within the budget and the step bound, and never joins every app's
// windows with some apps'.
func TestStateQuestions(t *testing.T) {
	h := time.Hour
	var ws []window
	for i := range 5 {
		ws = append(ws, window{at: t0.Add(time.Duration(i) * h), apps: []int{i % 2}})
	}
	ws = append(ws, window{at: t0.Add(5 * h)}, window{at: t0.Add(6 * h)})
	qs := questions(ws, h, time.Minute, 10_000)
	want := []stateQuestion{{start: t0, end: t0.Add(4 * h), size: h, apps: []int{0, 1}},
		{start: t0.Add(5 * h), end: t0.Add(6 * h), size: h}}
	if diff := cmp.Diff(want, qs, cmp.AllowUnexported(stateQuestion{})); diff != "" {
		t.Errorf("questions (-want +got):\n%s", diff)
	}
	// 2 apps x 60 instants an hour: a budget of 240 takes two hours a
	// question.
	if qs := questions(ws[:4], h, time.Minute, 240); len(qs) != 2 {
		t.Errorf("%d questions within a budget of 240 app-instants, want 2: %+v", len(qs), qs)
	}
}

// refineStates over any scripted past (changes on the resolution's
// instants, a range starting and ending anywhere) asks questions within
// the step bound, never panics, and learns exactly the past: every span
// lies in the range and agrees with the script at each of its instants,
// and every instant with data is covered.
func FuzzRefineStates(f *testing.F) {
	f.Add([]byte{2, 3, 50, 7, 1, 200, 2, 90, 0, 30, 1})
	f.Add([]byte{0, 0, 0})
	f.Add([]byte{3, 255, 255, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	f.Fuzz(func(t *testing.T, data []byte) {
		next := func() int {
			if len(data) == 0 {
				return 0
			}
			b := data[0]
			data = data[1:]
			return int(b)
		}
		res := []time.Duration{time.Minute, 30 * time.Second, 15 * time.Second}[next()%3]
		base := t0.Truncate(24 * time.Hour).Add(-3 * 24 * time.Hour)
		from := base.Add(time.Duration(next()*next()) * res)
		to := from.Add(time.Duration(1+next()*next()*4) * res)
		apps := 1 + next()%4
		truth := make([]pastTruth, apps)
		for i := range truth {
			at := base
			for n := next() % 8; n >= 0; n-- {
				end := at.Add(time.Duration(1+next()*next()) * res)
				truth[i] = append(truth[i], timeline.Span{From: at, To: end, State: []timeline.State{timeline.Up, timeline.Down, timeline.Unknown}[next()%3]})
				at = end
			}
		}
		need := map[int64]bool{}
		for d := from.Truncate(24 * time.Hour); d.Before(to); d = d.Add(24 * time.Hour) {
			need[d.Unix()] = true
		}
		a, err := refineStates(from, to, res, maxPastSteps, need, func(r PastRange, take func(PastState)) error {
			if r.Step <= 0 || r.End.Before(r.Start) || r.End.Sub(r.Start)/r.Step >= maxPastSteps {
				t.Fatalf("question out of bounds: %+v", r)
			}
			for at := r.Start; !at.After(r.End); at = at.Add(r.Step) {
				for i := range truth {
					if r.Apps == nil || slices.Contains(r.Apps, i) {
						take(countInstants(truth[i], i, at, r.Window, res))
					}
				}
			}
			return nil
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i, tr := range truth {
			for _, s := range a.spans[i] {
				if s.From.Before(from) || s.To.After(to) || !s.From.Before(s.To) {
					t.Fatalf("app %d: span %+v outside [%s, %s)", i, s, from, to)
				}
			}
			for at := from.Truncate(res); at.Before(to); at = at.Add(res) {
				want := tr.at(at)
				got := pastTruth(a.spans[i]).at(later(at, from))
				if got != want && !(want == timeline.Unknown && at.Add(res).After(to)) {
					t.Fatalf("app %d at %s: learnt %v, script %v (spans %+v)", i, at, got, want, a.spans[i])
				}
			}
		}
	})
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

// TestBackfillStatesCost counts the questions the record's backfill asks
// of one Prometheus query (200 apps, promsource's batch) over 90 days in
// which 2 of them (1%) are down an hour every day, with the budget
// askStates gives a promsource query (MaxSteps 10,000) at the minute's
// resolution of an hourly interval. It reports, it does not assert: the
// request count of a fleet is this times its queries (10,000 apps: 50).
func TestBackfillStatesCost(t *testing.T) {
	day := 24 * time.Hour
	to := t0.Truncate(time.Minute)
	from := to.Add(-90 * day).Truncate(day)
	need := map[int64]bool{}
	for d := from; d.Before(to); d = d.Add(day) {
		need[d.Unix()] = true
	}
	// One query of promsource's batch of 200 apps: the questions it asks
	// over 90 days of which every one needs filling.
	const apps = 200
	budget := stateBudget
	for _, tc := range []struct {
		name         string
		every        int
		start        time.Duration // into the day, an hour long
		maxQuestions int
	}{
		// The days (two questions), the mixed hours of the apps that changed, the end's
		// partial hour of every app.
		{"1% on whole hours", 100, 3 * time.Hour, 4},
		{"10% on whole hours", 10, 3 * time.Hour, 4},
		// And their mixed minutes: a question of minutes spans at most
		// maxPastSteps of them (a week; Prometheus answers at most 11,000
		// steps), 13 over 90 days however few apps it asks.
		{"1% off whole hours", 100, 3*time.Hour + 17*time.Minute, 17},
		{"10% off whole hours", 10, 3*time.Hour + 17*time.Minute, 17},
	} {
		t.Run(tc.name, func(t *testing.T) {
			down := func(app int, x time.Time) bool {
				in := x.Sub(x.Truncate(day))
				return app%tc.every == 7 && in >= tc.start && in < tc.start+time.Hour
			}
			asked, points := 0, 0
			perLevel := map[time.Duration]int{}
			_, err := refineStates(from, to, time.Minute, budget, need, func(r PastRange, take func(PastState)) error {
				asked++
				perLevel[r.Window]++
				for at := r.Start; !at.After(r.End); at = at.Add(r.Step) {
					for i := range apps {
						if r.Apps != nil && !slices.Contains(r.Apps, i) {
							continue
						}
						points++
						take(countDown(i, at, r.Window, to, down))
					}
				}
				return nil
			}, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d questions (by window %v), %d points; 10,000 apps: %d requests", asked, perLevel, points, 50*(asked+1))
			if asked > tc.maxQuestions {
				t.Errorf("%d questions for one query over 90 days, want at most %d", asked, tc.maxQuestions)
			}
		})
	}
}

// countDown is app's PastState of the window [at, at+window), every minute
// present before to and down where down says.
func countDown(app int, at time.Time, window time.Duration, to time.Time, down func(int, time.Time) bool) PastState {
	st := PastState{App: app, At: at, Window: window, Instants: int(window / time.Minute)}
	st.Present = st.Instants
	if app%10 != 7 {
		return st // never down in any case of the test: no need to walk its minutes
	}
	for x := at; x.Before(at.Add(window)) && x.Before(to); x = x.Add(time.Minute) {
		if down(app, x) {
			st.Down++
		}
	}
	return st
}
