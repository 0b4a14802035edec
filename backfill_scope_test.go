package availmon

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/availmon/availmon/internal/backfill"
	"github.com/availmon/availmon/timeline"
)

// scopedPast is a source whose past queries each tell the states of a
// part of the apps, in one request each, and say which (PastScope), as a
// promsource query of fused selectors does. Its windows are counted from
// the truth's spans, not instant by instant, so that thousands of apps
// over months answer in a unit test.
type scopedPast struct {
	*scriptedPast
	parts int
}

func (s *scopedPast) PlanPast(apps []App) []PastQuery {
	var out []PastQuery
	for p := range s.parts {
		q := &scopedQuery{scriptedQuery: scriptedQuery{s: s.scriptedPast, apps: slices.Clone(apps)}}
		for i := p; i < len(apps); i += s.parts {
			q.scope = append(q.scope, i)
		}
		out = append(out, q)
	}
	return out
}

type scopedQuery struct {
	scriptedQuery
	scope []int
}

var _ PastScope = (*scopedQuery)(nil)

func (q *scopedQuery) PastApps() []int { return q.scope }

func (q *scopedQuery) Probe(ctx context.Context, r PastRange) (time.Time, bool, error) {
	if err := q.s.request(r); err != nil {
		return time.Time{}, false, err
	}
	first, found := time.Time{}, false
	for _, i := range q.scope {
		if tr := q.s.truth[q.apps[i].Name]; len(tr) > 0 && (!found || tr[0].From.Before(first)) {
			first, found = tr[0].From, true
		}
	}
	if !found || first.After(r.End) {
		return time.Time{}, false, nil
	}
	return later(r.Start, first).Truncate(r.Step), true, nil
}

// States records the request with the apps it reads (the scope when it
// asks every app) and counts each window's instants from the spans.
func (q *scopedQuery) States(ctx context.Context, r PastRange, add func(PastState)) error {
	if r.Apps == nil {
		r.Apps = q.scope
	}
	if err := q.s.request(r); err != nil {
		return err
	}
	for at := r.Start; !at.After(r.End); at = at.Add(r.Step) {
		for _, i := range r.Apps {
			st := PastState{App: i, At: at, Window: r.Window, Instants: int(r.Window / r.Resolution)}
			for _, sp := range q.s.truth[q.apps[i].Name] {
				n := instantsIn(later(sp.From, at), timeMin(sp.To, at.Add(r.Window)), at, r.Resolution)
				if sp.State != timeline.Unknown {
					st.Present += n
				}
				if sp.State == timeline.Down {
					st.Down += n
				}
			}
			add(st)
		}
	}
	return nil
}

// fleetMonitor is a test monitor of n apps app-0000, app-0001, ... in one
// location, checked every minute on src, with the backfill on; truth is
// given app a's past by truthOf(a).
func fleetMonitor(t *testing.T, n int, src Source, truth map[string]pastTruth, truthOf func(a int) pastTruth) *testMonitor {
	return newTestMonitor(t, func(o *Options) {
		o.Apps = nil
		for a := range n {
			name := fmt.Sprintf("app-%04d", a)
			o.Apps = append(o.Apps, App{Name: name, Location: "Tel Aviv", Metric: fmt.Sprintf(`up{job=%q}`, name)})
			truth[name] = truthOf(a)
		}
		o.Interval = time.Minute
		o.Backends = []Backend{{Name: "main", URL: testPromURL, Source: src, BatchSize: 100}}
		o.Backfill = true
	})
}

// instantsIn counts the instants base + k·res in [from, to).
func instantsIn(from, to, base time.Time, res time.Duration) int {
	if !from.Before(to) {
		return 0
	}
	first := (from.Sub(base) + res - 1) / res
	last := (to.Sub(base) - 1) / res
	return int(last - first + 1)
}

// A question of every app of a query that tells its apps reads those
// apps in one request, so the planner bounds a request, not a question of
// the backend's every app: 2,000 apps in four queries of 500 ask 91 days
// by minutes in questions of 20 days (each at most AppInstants), where a
// bound counting all 2,000 apps in each asked 5 days a question, four
// times as many requests.
func TestBackfillStatesBoundsRequestsOfScopedQueries(t *testing.T) {
	const apps, parts, days = 2000, 4, 90
	start := t0.Add(-days * 24 * time.Hour).Truncate(24 * time.Hour)
	truth := map[string]pastTruth{}
	src := &scopedPast{scriptedPast: newScriptedPast(truth), parts: parts}
	tm := fleetMonitor(t, apps, src, truth, func(int) pastTruth { return upSince(start, t0.Add(time.Hour)) })
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	tm.backfillRecord(ctx)

	dayInstants, dayRequests := 0, 0
	for _, r := range src.requests() {
		if r.Window != 24*time.Hour {
			continue // the probes, and the day that reaches past now by hours
		}
		n := len(r.Apps) * (int(r.End.Sub(r.Start)/r.Step) + 1) * int(r.Window/r.Resolution)
		if n > backfill.AppInstants {
			t.Errorf("a request reads %d app-instants, over %d: %d apps, %v to %v", n, backfill.AppInstants, len(r.Apps), r.Start, r.End)
		}
		dayInstants += n
		dayRequests++
	}
	// Each query's days are cut into questions of as many whole days as
	// the bound holds: at most one more than the perfect packing a query.
	perQuery := backfill.AppInstants / (apps / parts) / 1440
	most := parts * ((days+1)/perQuery + 1)
	t.Logf("day level: %d requests, %d app-instants", dayRequests, dayInstants)
	if dayRequests == 0 || dayRequests > most {
		t.Errorf("the day level took %d requests (%d app-instants), want at most %d (%d days a request)",
			dayRequests, dayInstants, most, perQuery)
	}
	want := timeline.Span{From: start, To: t0, State: timeline.Up}
	for _, app := range []string{"app-0000", "app-1999"} {
		if got := recordOf(tm, app, start, t0); len(got) != 1 || got[0] != want {
			t.Errorf("%s's record %v, want %v", app, got, want)
		}
	}
}

// The probe that finds where a query's data begins over the record's
// retention asks at most recordProbeSteps steps (it counts the apps at
// each, grouped: at an hour's step over 400 days it was a fifth of a
// 90-day backfill's wall), ending on the current minute, so that data of
// the last few hours is found whatever the step.
func TestBackfillStatesProbeIsCoarse(t *testing.T) {
	start := t0.Add(-5*time.Hour - 17*time.Minute)
	truth := map[string]pastTruth{"checkout": upSince(start, t0.Add(time.Hour)),
		"search": upSince(start, t0.Add(time.Hour)), "billing": upSince(start, t0.Add(time.Hour))}
	tm, src := pastMonitor(t, t0, truth)
	tm.backfillRecord(waitCtx(t))
	probe := src.requests()[0]
	if n := int(probe.End.Sub(probe.Start)/probe.Step) + 1; n > recordProbeSteps+1 || !probe.End.Equal(t0.Truncate(time.Minute)) {
		t.Errorf("the probe asks %d steps up to %v, want at most %d up to %v: %+v",
			n, probe.End, recordProbeSteps+1, t0.Truncate(time.Minute), probe)
	}
	want := []timeline.Span{{From: start, To: t0.Truncate(time.Minute), State: timeline.Up}}
	if got := recordOf(tm, "checkout", start.Add(-24*time.Hour), t0); !slices.Equal(got, want) {
		t.Errorf("checkout's record %v, want %v", got, want)
	}
}

// joinedPast is scopedPast whose queries join (PastJoiner): a question of
// one may name apps of the others, as promsource's queries of one
// PlanPast call may.
type joinedPast struct{ scopedPast }

func (s *joinedPast) PlanPast(apps []App) []PastQuery {
	out := s.scopedPast.PlanPast(apps)
	for i, q := range out {
		out[i] = &joinedQuery{scopedQuery: q.(*scopedQuery), past: s}
	}
	return out
}

type joinedQuery struct {
	*scopedQuery
	past *joinedPast
}

var _ PastJoiner = (*joinedQuery)(nil)

func (q *joinedQuery) JoinsPast(other PastStater) bool {
	o, ok := other.(*joinedQuery)
	return ok && o.past == q.past
}

// The hours and minutes of the few apps that changed in a day are asked
// of all of a backend's joined queries together: 2,000 apps in four
// queries, a tenth of them down for ten minutes each day over 20 days,
// cost about a request of minutes a day, where asked query by query each
// day cost one of each query. The record is exact either way.
func TestBackfillStatesJoinsQueriesBelowDays(t *testing.T) {
	const apps, parts, days = 2000, 4, 20
	for _, join := range []bool{false, true} {
		t.Run(fmt.Sprintf("join=%v", join), func(t *testing.T) {
			start := t0.Add(-days * 24 * time.Hour).Truncate(24 * time.Hour)
			truth := map[string]pastTruth{}
			scoped := scopedPast{scriptedPast: newScriptedPast(truth), parts: parts}
			var src Source = &scoped
			if join {
				src = &joinedPast{scopedPast: scoped}
			}
			tm := fleetMonitor(t, apps, src, truth, func(a int) pastTruth {
				return upSince(start, t0.Add(time.Hour), outages(a, start, days)...)
			})
			ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
			defer cancel()
			tm.backfillRecord(ctx)

			byLevel := map[time.Duration]int{}
			for _, r := range scoped.requests() {
				if r.Window > 0 {
					byLevel[r.Window]++
				}
			}
			t.Logf("requests by window: %v", byLevel)
			minutes := byLevel[time.Minute]
			if join && (minutes > days+days/2 || byLevel[time.Hour] > days+days/2) {
				t.Errorf("%d requests of minutes and %d of hours over %d days, want about one of each a day",
					minutes, byLevel[time.Hour], days)
			}
			if !join && minutes < 3*days {
				t.Errorf("%d requests of minutes over %d days asked query by query, want one of each query a day", minutes, days)
			}
			for _, a := range []int{0, 4, 1001, 1999} {
				name := fmt.Sprintf("app-%04d", a)
				want := []timeline.Span(upSince(start, t0, outages(a, start, days)...))
				if got := recordOf(tm, name, start, t0); !slices.Equal(got, want) {
					t.Errorf("%s's record %v, want %v", name, got, want)
				}
			}
		})
	}
}

// outages are app a's ten-minute outages over days from start and
// the day after, the current one: on the
// days when a tenth of the apps, of every query, is down, at one of three
// hours of the day (an incident that takes down many apps at once).
func outages(a int, start time.Time, days int) []timeline.Span {
	var out []timeline.Span
	for d := range days + 1 { // and today's, before now
		if (a/4+d)%10 != 0 {
			continue
		}
		at := start.Add(time.Duration(d)*24*time.Hour + time.Duration((5*d+a%3)%24)*time.Hour + 17*time.Minute)
		out = append(out, timeline.Span{From: at, To: at.Add(10 * time.Minute), State: timeline.Down})
	}
	return out
}

// strayPast is scopedPast whose queries, as a faulty source's might, name
// apps that are not theirs: indexes past the apps given to PlanPast and
// below zero, in PastApps and in the states they tell.
type strayPast struct{ *scopedPast }

func (s *strayPast) PlanPast(apps []App) []PastQuery {
	qs := s.scopedPast.PlanPast(apps)
	for i, q := range qs {
		qs[i] = &strayQuery{scopedQuery: q.(*scopedQuery)}
	}
	return qs
}

type strayQuery struct{ *scopedQuery }

func (q *strayQuery) PastApps() []int {
	return append(slices.Clone(q.scope), len(q.apps)+7, -1)
}

func (q *strayQuery) Hours(ctx context.Context, r PastRange, add func(PastCount)) error {
	for at := r.Start; !at.After(r.End); at = at.Add(r.Step) {
		add(PastCount{App: len(q.apps) + 3, At: at, Up: 60})
	}
	return nil
}

func (q *strayQuery) States(ctx context.Context, r PastRange, add func(PastState)) error {
	return q.scopedQuery.States(ctx, r, func(st PastState) {
		if st.App < 0 || st.App >= len(q.apps) {
			return // the scripted truth has no such app; told below
		}
		add(st)
		add(PastState{App: len(q.apps) + st.App, At: st.At, Window: st.Window, Instants: st.Instants, Present: st.Instants})
		add(PastState{App: -1 - st.App, At: st.At, Window: st.Window, Instants: st.Instants, Present: st.Instants, Down: st.Instants})
	})
}

// A source that tells states of apps it was not asked about, or names
// them as its own, is a faulty source, not a reason to crash: the states
// of apps that exist are kept, the others dropped.
func TestBackfillStatesDropsStrayApps(t *testing.T) {
	start := t0.Add(-3 * 24 * time.Hour).Truncate(24 * time.Hour)
	truth := map[string]pastTruth{}
	src := &strayPast{&scopedPast{scriptedPast: newScriptedPast(truth), parts: 2}}
	tm := fleetMonitor(t, 6, src, truth, func(int) pastTruth { return upSince(start, t0.Add(time.Hour)) })
	tm.fillHistory(waitCtx(t))
	tm.backfillRecord(waitCtx(t))
	want := timeline.Span{From: start, To: t0, State: timeline.Up}
	for a := range 6 {
		app := fmt.Sprintf("app-%04d", a)
		if got := recordOf(tm, app, start, t0); len(got) != 1 || got[0] != want {
			t.Errorf("%s's record %v, want %v", app, got, want)
		}
	}
}
