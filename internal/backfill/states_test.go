package backfill

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/availmon/availmon/timeline"
)

// t0 is a whole minute, as the monitor's tests start their clocks at.
var t0 = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

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

// countInstants reads truth at the instants of [at, at+window) res apart.
func countInstants(truth pastTruth, app int, at time.Time, window, res time.Duration) State {
	st := State{App: app, At: at, Window: window}
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

// take makes pure windows spans, mixed ones windows of the next level,
// and at the finest level lets the majority of present instants decide.
func TestStateAnswersTake(t *testing.T) {
	from, to := t0.Add(-24*time.Hour), t0
	a := &Answers{From: from, To: to, Spans: map[int][]timeline.Span{}, mixed: map[int64][]int{}}
	h := time.Hour
	a.take(State{App: 0, At: from, Instants: 60, Present: 60}, h, false)
	a.take(State{App: 0, At: from.Add(h), Instants: 60, Present: 60}, h, false)
	a.take(State{App: 1, At: from, Instants: 60, Present: 60, Down: 60}, h, false)
	a.take(State{App: 2, At: from, Instants: 60, Present: 0}, h, false)
	a.take(State{App: 3, At: from, Instants: 60, Present: 30}, h, false)
	a.take(State{App: 4, At: from, Instants: 60, Present: 60, Down: 1}, h, false)
	a.take(State{App: 5, At: from, Instants: 4, Present: 3, Down: 2}, time.Minute, true)
	a.take(State{App: 6, At: from, Instants: 4, Present: 1, Down: 0}, time.Minute, true)
	a.take(State{App: 7, At: to.Add(-30 * time.Minute), Instants: 60, Present: 60}, h, false)
	a.take(State{App: 8, At: from.Add(-h), Instants: 60, Present: 60}, h, false)
	want := map[int][]timeline.Span{
		0: {{From: from, To: from.Add(2 * h), State: timeline.Up}},
		1: {{From: from, To: from.Add(h), State: timeline.Down}},
		5: {{From: from, To: from.Add(time.Minute), State: timeline.Down}},
		7: {{From: to.Add(-30 * time.Minute), To: to, State: timeline.Up}},
	}
	if diff := cmp.Diff(want, a.Spans); diff != "" {
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
	a := &Answers{From: from, To: to, mixed: map[int64][]int{whole[0].at.Unix(): {2}}}
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
	qs := questions(ws, h, time.Minute, 10_000, 10_000)
	want := []stateQuestion{{start: t0, end: t0.Add(4 * h), size: h, apps: []int{0, 1}},
		{start: t0.Add(5 * h), end: t0.Add(6 * h), size: h}}
	if diff := cmp.Diff(want, qs, cmp.AllowUnexported(stateQuestion{})); diff != "" {
		t.Errorf("questions (-want +got):\n%s", diff)
	}
	// 2 apps x 60 instants an hour: 240 app-instants take two hours a
	// question.
	if qs := questions(ws[:4], h, time.Minute, 10_000, 240); len(qs) != 2 {
		t.Errorf("%d questions within 240 app-instants, want 2: %+v", len(qs), qs)
	}
	// Every app's windows: 120 instants of each take two hours a
	// question, whatever the app-instants of some apps' questions.
	if qs := questions(ws[5:], h, time.Minute, 60, 10_000); len(qs) != 2 {
		t.Errorf("%d questions of every app within 60 instants of each, want 2: %+v", len(qs), qs)
	}
}

// Refine, and RefineJoined of the apps dealt out to several queries,
// over any scripted past (changes on the resolution's
// instants, a range starting and ending anywhere) asks questions within
// the step bound, never panics, and learns exactly the past: every span
// lies in the range and agrees with the script at each of its instants,
// and every instant with data is covered.
func FuzzRefine(f *testing.F) {
	f.Add([]byte{2, 3, 50, 7, 1, 200, 2, 90, 0, 30, 1})
	f.Add([]byte{0, 0, 0})
	f.Add([]byte{0, 1, 0, 60, 6, 1, 2, 30, 20, 0, 10, 6, 1, 40, 40, 0, 0, 50, 50, 0, 5}) // refused above 27 app-instants
	f.Add([]byte{3, 255, 255, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	f.Add([]byte{0, 0, 0, 30, 30, 3, 1, 10, 10, 0, 5, 5, 1, 0, 20, 20, 1, 1, 7, 7, 0, 3, 3, 2, 0, 40, 40, 0, 0, 1}) // joined, two parts
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
		// A backend that refuses questions of more app-instants than limit
		// (none when zero), after it answered part of one; at least a
		// single window of the finest level of every app, which it must
		// answer.
		limit := 0
		if n := next(); n > 0 {
			limit = apps + n*n
		}
		// ask answers questions of the apps of scope (nil for all) when
		// they name none.
		ask := func(scope []int) func(r Range, take func(State)) error {
			return func(r Range, take func(State)) error {
				if r.Step <= 0 || r.End.Before(r.Start) || r.End.Sub(r.Start)/r.Step >= MaxSteps {
					t.Fatalf("question out of bounds: %+v", r)
				}
				want := r.Apps
				if want == nil {
					want = scope
				}
				asked := len(want)
				if want == nil {
					asked = apps
				}
				refuse := limit > 0 && asked*(int(r.End.Sub(r.Start)/r.Step)+1)*int(r.Window/res) > limit
				for at := r.Start; !at.After(r.End); at = at.Add(r.Step) {
					for i := range truth {
						if want == nil || slices.Contains(want, i) {
							take(countInstants(truth[i], i, at, r.Window, res))
						}
					}
					if refuse {
						return ErrTooLarge
					}
				}
				return nil
			}
		}
		// Two parts or more: the apps dealt out to that many queries,
		// refined joined.
		var a *Answers
		var err error
		if n := 1 + next()%3; n == 1 || apps < 2 {
			a, err = Refine(from, to, res, &Sizer{Budget: MaxSteps}, need, ask(nil), nil)
		} else {
			var parts []Part
			for p := range min(n, apps) {
				var scope []int
				for i := p; i < apps; i += min(n, apps) {
					scope = append(scope, i)
				}
				parts = append(parts, Part{Sizer: &Sizer{Budget: MaxSteps, Apps: len(scope), Scope: scope}, Ask: ask(scope)})
			}
			a, err = RefineJoined(from, to, res, need, parts, Part{Sizer: &Sizer{Budget: MaxSteps, Apps: apps}, Ask: ask(nil)}, nil)
		}
		if err != nil {
			t.Fatal(err)
		}
		for i, tr := range truth {
			for _, s := range a.Spans[i] {
				if s.From.Before(from) || s.To.After(to) || !s.From.Before(s.To) {
					t.Fatalf("app %d: span %+v outside [%s, %s)", i, s, from, to)
				}
			}
			for at := from.Truncate(res); at.Before(to); at = at.Add(res) {
				want := tr.at(at)
				got := pastTruth(a.Spans[i]).at(later(at, from))
				if got != want && !(want == timeline.Unknown && at.Add(res).After(to)) {
					t.Fatalf("app %d at %s: learnt %v, script %v (spans %+v)", i, at, got, want, a.Spans[i])
				}
			}
		}
	})
}

// A backend that refuses every question makes Refine fail with
// ErrTooLarge once it can split no more, not ask for ever.
func TestRefineRefusedForGood(t *testing.T) {
	from, to := t0.Add(-3*24*time.Hour), t0
	need := map[int64]bool{}
	for d := from.Truncate(24 * time.Hour); d.Before(to); d = d.Add(24 * time.Hour) {
		need[d.Unix()] = true
	}
	asked := 0
	_, err := Refine(from, to, time.Minute, &Sizer{Budget: Budget}, need, func(r Range, take func(State)) error {
		if asked++; asked > 10_000 {
			t.Fatalf("still asking after %d questions: %+v", asked, r)
		}
		return ErrTooLarge
	}, nil)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Refine: %v, want ErrTooLarge", err)
	}
}

// A day of every app that the backend refuses is asked by hours, in
// questions of every app within the budget of one of every app, not
// within the app-instants of a question of some apps.
func TestRefineRefusedDayByHours(t *testing.T) {
	from, to := t0.Add(-3*24*time.Hour).Truncate(24*time.Hour), t0.Truncate(24*time.Hour)
	need := map[int64]bool{}
	for d := from; d.Before(to); d = d.Add(24 * time.Hour) {
		need[d.Unix()] = true
	}
	const budget = 120 // two hours of minutes
	hours := 0
	a, err := Refine(from, to, time.Minute, &Sizer{Budget: budget}, need, func(r Range, take func(State)) error {
		instants := (int(r.End.Sub(r.Start)/r.Step) + 1) * int(r.Window/r.Resolution)
		if r.Window == 24*time.Hour {
			return ErrTooLarge
		}
		if r.Apps == nil && instants > budget {
			t.Errorf("a question of every app reads %d instants of each, over %d: %+v", instants, budget, r)
		}
		for at := r.Start; !at.After(r.End); at = at.Add(r.Step) {
			hours++
			take(State{App: 0, At: at, Window: r.Window, Instants: 60, Present: 60})
		}
		return nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []timeline.Span{{From: from, To: to, State: timeline.Up}}; !cmp.Equal(want, a.Spans[0]) || hours != 72 {
		t.Errorf("learnt %+v from %d hours, want %+v from 72", a.Spans[0], hours, want)
	}
}

// TestRefineCost counts the questions the record's backfill asks
// of one Prometheus query (200 apps, promsource's batch) over 90 days in
// which 2 of them (1%) are down an hour every day, with the budget
// askStates gives a promsource query (MaxSteps 10,000) at the minute's
// resolution of an hourly interval. It reports, it does not assert: the
// request count of a fleet is this times its queries (10,000 apps: 50).
func TestRefineCost(t *testing.T) {
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
	budget := Budget
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
		// And their mixed minutes: the 2 apps' two hours a day joined
		// across the days, as their minutes between cost less than a
		// request, in questions of at most MaxSteps minutes (a week;
		// Prometheus answers at most 11,000 steps), 13 over 90 days; the
		// 20 apps' a question a day, as theirs cost more (22 hours of
		// 20 apps' minutes, 0.7 M app-instants against a request's 0.5 M).
		{"1% off whole hours", 100, 3*time.Hour + 17*time.Minute, 17},
		{"10% off whole hours", 10, 3*time.Hour + 17*time.Minute, 96},
	} {
		t.Run(tc.name, func(t *testing.T) {
			down := func(app int, x time.Time) bool {
				in := x.Sub(x.Truncate(day))
				return app%tc.every == 7 && in >= tc.start && in < tc.start+time.Hour
			}
			asked, points := 0, 0
			perLevel := map[time.Duration]int{}
			_, err := Refine(from, to, time.Minute, &Sizer{Budget: budget}, need, func(r Range, take func(State)) error {
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
func countDown(app int, at time.Time, window time.Duration, to time.Time, down func(int, time.Time) bool) State {
	st := State{App: app, At: at, Window: window, Instants: int(window / time.Minute)}
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

// Retries wait the first wait, then twice as long each time, up to the
// most.
func TestBackoff(t *testing.T) {
	want := []time.Duration{10 * time.Second, 20 * time.Second, 40 * time.Second, 80 * time.Second,
		160 * time.Second, 320 * time.Second, 10 * time.Minute, 10 * time.Minute}
	var got []time.Duration
	for n := range want {
		got = append(got, Backoff(n, 10*time.Second, 10*time.Minute))
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("backoff (-want +got):\n%s", d)
	}
	if d := Backoff(1000, 10*time.Second, 10*time.Minute); d != 10*time.Minute {
		t.Errorf("backoff after 1000 retries: %s", d)
	}
}

// The finest level asks only the mixed hours' minutes: every app's at the
// start of the data (an hour partly without data) and the changed apps'
// each day, not a run of minutes from the one to the others, nor every
// app's minutes over the days between (what joining the start's every
// app with the next days' few gave: 74 hours of every app at 2,000 apps).
func TestRefineAsksOnlyMixedMinutes(t *testing.T) {
	const apps, days = 400, 10
	day := 24 * time.Hour
	to := t0.Add(4*time.Hour + 45*time.Minute)
	start := to.Add(-days*day - time.Hour - 13*time.Minute) // the data's first minute
	from := start.Add(-15 * time.Minute)                    // a probe step before it
	need := map[int64]bool{}
	for d := from.Truncate(day); d.Before(to); d = d.Add(day) {
		need[d.Unix()] = true
	}
	down := func(app int, x time.Time) bool {
		in := x.Sub(x.Truncate(day))
		return app%10 == 7 && in >= 3*time.Hour+17*time.Minute && in < 4*time.Hour+17*time.Minute
	}
	state := func(app int, x time.Time) timeline.State {
		switch {
		case x.Before(start) || !x.Before(to):
			return timeline.Unknown
		case down(app, x):
			return timeline.Down
		}
		return timeline.Up
	}
	asked, minutes := 0, 0
	sz := &Sizer{Budget: Budget, Apps: apps, Most: AppInstants}
	a, err := Refine(from, to, time.Minute, sz, need, func(r Range, take func(State)) error {
		asked++
		n := len(r.Apps)
		if r.Apps == nil {
			n = apps
		}
		if r.Window == time.Minute {
			minutes += n * steps(r)
		}
		for at := r.Start; !at.After(r.End); at = at.Add(r.Step) {
			for app := range apps {
				if r.Apps == nil || slices.Contains(r.Apps, app) {
					st := State{App: app, At: at, Window: r.Window, Instants: int(r.Window / r.Resolution)}
					for x := at; x.Before(at.Add(r.Window)); x = x.Add(r.Resolution) {
						switch state(app, x) {
						case timeline.Down:
							st.Down++
							st.Present++
						case timeline.Up:
							st.Present++
						}
					}
					take(st)
				}
			}
		}
		return nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Mixed: every app's first and last hours, the changed apps' two
	// hours a day.
	mixed := apps*(60+60) + apps/10*2*60*(days+1)
	t.Logf("%d questions, %d app-minutes asked, %d mixed", asked, minutes, mixed)
	if minutes > mixed {
		t.Errorf("%d app-minutes asked, want at most the %d of the mixed hours", minutes, mixed)
	}
	for app := range apps {
		for x := from.Truncate(time.Minute); x.Before(to); x = x.Add(time.Minute) {
			if got, want := pastTruth(a.Spans[app]).at(later(x, from)), state(app, x); got != want {
				t.Fatalf("app %d at %s: learnt %v, want %v", app, x, got, want)
			}
		}
	}
}

// A question of every app of a query whose apps the Sizer knows (Scope)
// that the backend refuses is halved into those apps, not into the
// indexes 0 to Apps-1, which may be other queries' apps.
func TestRefineRefusedHalvesScope(t *testing.T) {
	from := t0.Truncate(24 * time.Hour).Add(-24 * time.Hour)
	to := from.Add(24 * time.Hour)
	scope := []int{5, 9, 12}
	var asked [][]int
	a, err := Refine(from, to, time.Minute, &Sizer{Budget: Budget, Apps: len(scope), Scope: scope},
		map[int64]bool{from.Unix(): true}, func(r Range, take func(State)) error {
			if r.Apps == nil {
				return ErrTooLarge
			}
			asked = append(asked, r.Apps)
			for _, app := range r.Apps {
				take(State{App: app, At: r.Start, Window: r.Window, Instants: 1440, Present: 1440})
			}
			return nil
		}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]int{{5}, {9, 12}}; !cmp.Equal(want, asked) {
		t.Errorf("asked the apps %v, want %v", asked, want)
	}
	if len(a.Spans) != len(scope) || a.Spans[9] == nil {
		t.Errorf("learnt of apps %v, want those of %v", a.Spans, scope)
	}
}
