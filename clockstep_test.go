package availmon

import (
	"testing"
	"time"

	"github.com/availmon/availmon/internal/history"
	"github.com/google/go-cmp/cmp"
)

// A clock set while the monitor runs re-dates what it has recorded by the
// step, so that the record keeps its real spacing under the clock's new
// setting: nothing is lost (the 24-hour counters of the real day are
// there after a day's excursion of the clock), the history stays in
// order, and /api/status/history has each cycle in its own minute. Steps
// under clockStepTolerance are jitter and change nothing, but the history
// keeps its order through them. A clock that cannot tell elapsed time
// (plain) still sees a step back, as a reading before the last cycle's.
func TestClockSteps(t *testing.T) {
	const cycles = 12
	tests := []struct {
		name  string
		steps map[int]time.Duration // after cycle i, the clock is set by
		plain bool                  // the clock cannot tell elapsed time
		// exact: every check is dated at its real time plus the clock's
		// last offset; else at its reading, kept in order.
		exact bool
	}{
		{"forward a day and back", map[int]time.Duration{3: 24 * time.Hour, 7: -24 * time.Hour}, false, true},
		{"forward a day, and it stays", map[int]time.Duration{5: 24 * time.Hour}, false, true},
		{"back an hour", map[int]time.Duration{5: -time.Hour}, false, true},
		{"back two days", map[int]time.Duration{5: -48 * time.Hour}, false, true},
		{"back a day and forward again", map[int]time.Duration{2: -24 * time.Hour, 9: 24 * time.Hour}, false, true},
		{"jitter", map[int]time.Duration{2: 700 * time.Millisecond, 4: -900 * time.Millisecond,
			6: -400 * time.Millisecond, 8: 300 * time.Millisecond}, false, false},
		{"back two days, plain clock", map[int]time.Duration{5: -48 * time.Hour}, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The fake clock is set by Step and tells the time that
			// passed (Elapsed), as the system clock does.
			sc := newFakeClock(t0)
			var clock Clock = sc
			if tt.plain {
				clock = struct{ Clock }{sc} // Now only
			}
			tm := newTestMonitor(t, func(o *Options) { o.Clock = clock })
			tm.src.Set("checkout", StatusUp, 100*time.Millisecond)
			tm.src.Set("search", StatusDown, 300*time.Millisecond)
			// billing: unavailable
			var reals, readings []time.Time
			real, offset := t0, time.Duration(0) // the time that passed, and how far the clock was set
			for i := range cycles {
				reals = append(reals, real)
				readings = append(readings, sc.Now())
				tm.scrape(t)
				sc.Step(tt.steps[i])
				offset += tt.steps[i]
				if i < cycles-1 { // the requests come right after the last cycle
					sc.Advance(10 * time.Minute)
					real = real.Add(10 * time.Minute)
				}
			}
			want := make([]time.Time, cycles)
			for i := range want {
				switch {
				case tt.exact:
					want[i] = reals[i].Add(offset)
				case i > 0 && readings[i].Before(want[i-1]):
					want[i] = want[i-1]
				default:
					want[i] = readings[i]
				}
			}

			// The history is in order; dated exactly where the steps are
			// whole.
			_, app := get(t, tm.h, "/api/apps/checkout")
			hist := app["data"].(obj)["history"].(arr)
			var got []string
			for _, h := range hist {
				got = append(got, h.(obj)["timestamp"].(string))
			}
			for i := 1; i < len(got); i++ {
				if got[i] < got[i-1] {
					t.Errorf("history out of order at %d: %s after %s", i, got[i], got[i-1])
				}
			}
			if tt.exact || !tt.plain {
				var wantTS []string
				for _, w := range want {
					wantTS = append(wantTS, ts(w))
				}
				if diff := cmp.Diff(wantTS, got); diff != "" {
					t.Errorf("history timestamps (-want +got):\n%s", diff)
				}
				if lc := app["data"].(obj)["last_check"]; lc != ts(want[cycles-1]) {
					t.Errorf("last_check %v, want %s", lc, ts(want[cycles-1]))
				}
			}

			// Every check is in the 24-hour counters.
			_, sum := get(t, tm.h, "/api/metrics/summary")
			d := sum["data"].(obj)
			gotSum := []any{d["total_requests"], d["total_errors"], d["uptime_percentage"],
				d["apps_summary"].(arr)[0].(obj)["uptime_24h"], d["locations_summary"].(arr)[0].(obj)["availability"]}
			if diff := cmp.Diff([]any{3.0 * cycles, 1.0 * cycles, 50.0, 100.0, 50.0}, gotSum); diff != "" {
				t.Errorf("24h summary: total_requests, total_errors, uptime, checkout's uptime, Tel Aviv's (-want +got):\n%s", diff)
			}

			// Each cycle is in the minute history, in its own 5-minute
			// bucket, and nothing else is.
			if !tt.exact {
				return
			}
			points, _ := historyPoints(t, tm, "24h", "5m")
			var known, wantKnown []string
			for _, p := range points {
				if p.(obj)["overall_availability"] != nil {
					known = append(known, p.(obj)["timestamp"].(string))
				}
			}
			for _, w := range want {
				wantKnown = append(wantKnown, ts(w.Truncate(5*time.Minute)))
			}
			if diff := cmp.Diff(wantKnown, known); diff != "" {
				t.Errorf("24h/5m buckets with checks (-want +got):\n%s", diff)
			}
		})
	}
}

// Re-dating moves what the windows and the minute history hold by the
// step, rounded to their unit: summed at the re-dated time they show what
// they showed before.
func TestRedateKeepsCounts(t *testing.T) {
	base := t0.Add(30 * time.Minute)
	for _, step := range []time.Duration{time.Hour, -time.Hour, 90 * time.Minute, 24 * time.Hour,
		-48 * time.Hour, 25 * time.Hour, -23 * time.Hour, 30 * 24 * time.Hour, -31 * 24 * time.Hour} {
		t.Run(step.String(), func(t *testing.T) {
			var app history.AppDay
			var loc history.Day
			hist := newMinuteHistory()
			for i, h := range []time.Duration{-23 * time.Hour, -5 * time.Hour, -time.Hour, 0} {
				at := base.Add(h)
				s := []Status{StatusUp, StatusDown, StatusUnavailable, StatusUp}[i]
				app.Add(at, histStatus(s), time.Duration(i+1)*time.Millisecond)
				loc.Add(at, histStatus(s), time.Duration(i+1)*time.Millisecond, s != StatusUnavailable)
				hist.add(at, i, 1, 2)
			}
			wantApp, wantLoc := app.Sum(base), loc.Sum(base)
			wantHist := hist.points(base, 24*time.Hour, time.Hour)
			app.Redate(step)
			loc.Redate(step)
			hist.redate(step)
			now := base.Add(step.Round(time.Hour))
			if diff := cmp.Diff(wantApp, app.Sum(now)); diff != "" {
				t.Errorf("app window (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(wantLoc, loc.Sum(now)); diff != "" {
				t.Errorf("location window (-want +got):\n%s", diff)
			}
			got := hist.points(base.Add(step.Round(time.Minute)), 24*time.Hour, time.Hour)
			for i := range got {
				got[i].start = wantHist[i].start // the buckets' times move with the step
			}
			if step%time.Hour == 0 {
				if diff := cmp.Diff(wantHist, got, cmp.AllowUnexported(dataPoint{})); diff != "" {
					t.Errorf("minute history (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// A history re-dated by a step keeps its checks' spacing.
func TestHistoryRedate(t *testing.T) {
	var h history.Checks
	for _, at := range []time.Duration{0, time.Minute, 2 * time.Minute} {
		h.Add(history.Check{At: t0.Add(at).UnixNano(), Status: history.Up}, 10, nil)
	}
	h.Redate(-24 * time.Hour)
	h.Add(history.Check{At: t0.Add(-24*time.Hour + 3*time.Minute).UnixNano(), Status: history.Up}, 10, nil)
	var got []time.Duration
	for _, e := range h.List(nil) {
		got = append(got, time.Unix(0, e.At).Sub(t0.Add(-24*time.Hour)))
	}
	want := []time.Duration{0, time.Minute, 2 * time.Minute, 3 * time.Minute}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("check times after a day back (-want +got):\n%s", diff)
	}
}
