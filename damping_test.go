package availmon

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// statuses turns "UUD-" into up, up, down, unavailable.
func statuses(seq string) []Status {
	out := make([]Status, len(seq))
	for i, c := range seq {
		switch c {
		case 'U':
			out[i] = StatusUp
		case 'D':
			out[i] = StatusDown
		default:
			out[i] = StatusUnavailable
		}
	}
	return out
}

func TestDamperStep(t *testing.T) {
	th := thresholds{fail: 3, success: 2}
	tests := []struct {
		name, raw, want string
	}{
		{"first check taken at once", "D", "D"},
		{"steady up", "UUUU", "UUUU"},
		{"two downs are not enough", "UDDU", "UUUU"},
		{"three downs turn it down", "UDDDU", "UUUDD"},
		{"then one up is not enough, two are", "UDDDUU", "UUUDDU"},
		{"a blip resets the run", "UDDUDDD", "UUUUUUD"},
		{"unavailable is damped like down", "U---", "UUU-"},
		{"a different failure restarts the run", "UDD-DD", "UUUUUU"},
		{"up from down needs two in a row", "DUDUU", "DDDDU"},
		{"up from unavailable needs two", "-U-UU", "----U"},
		{"alternating never moves", "UDUDUDUD", "UUUUUUUU"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d damper
			var accepted Status
			checked := false
			var got []Status
			for _, r := range statuses(tt.raw) {
				accepted = d.step(accepted, checked, r, th)
				checked = true
				got = append(got, accepted)
			}
			if diff := cmp.Diff(statuses(tt.want), got); diff != "" {
				t.Errorf("raw %s (-want +got):\n%s", tt.raw, diff)
			}
		})
	}
}

// TestFlapDamping drives a monitor with thresholds 3/2 through scripted
// sequences: the shown state and the events follow the accepted states, the
// app's history keeps every raw result.
func TestFlapDamping(t *testing.T) {
	tests := []struct {
		name, raw, shown string
		events           []Status
	}{
		{"blips are absorbed", "UDDUDDU", "UUUUUUU", []Status{StatusUp}},
		{"an outage is accepted on its third check", "UUDDDDUU", "UUUUDDDU", []Status{StatusUp, StatusDown, StatusUp}},
		{"recovery needs two ups", "DUDUUD", "DDDDUU", []Status{StatusDown, StatusUp}},
		{"unavailable is damped", "U--U---", "UUUUUU-", []Status{StatusUp, StatusUnavailable}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tm := newTestMonitor(t, func(o *Options) {
				o.FailThreshold, o.SuccessThreshold = 3, 2
				o.Apps = o.Apps[:1]
			})
			from := tm.events.cursor()
			var shown []Status
			for _, r := range statuses(tt.raw) {
				tm.src.Set("checkout", r, 10*time.Millisecond)
				tm.scrape(t)
				tm.clock.Advance(30 * time.Second)
				shown = append(shown, tm.snap.Load().apps[0].status())
			}
			if diff := cmp.Diff(statuses(tt.shown), shown); diff != "" {
				t.Errorf("shown states (-want +got):\n%s", diff)
			}
			evs, _, _, _ := tm.events.read(from, nil)
			var got []Status
			for _, e := range evs {
				if e.Type == EventStatusUpdate {
					got = append(got, e.Status)
				}
			}
			if diff := cmp.Diff(tt.events, got); diff != "" {
				t.Errorf("status_update events (-want +got):\n%s", diff)
			}
			_, body := get(t, tm.h, "/api/apps/checkout")
			var hist strings.Builder
			for _, e := range body["data"].(map[string]any)["history"].([]any) {
				hist.WriteString(map[string]string{"up": "U", "down": "D", "unavailable": "-"}[e.(map[string]any)["status"].(string)])
			}
			if hist.String() != tt.raw {
				t.Errorf("history %s, want every raw check %s", hist.String(), tt.raw)
			}
		})
	}
}

func TestFlapDampingPerAppOverride(t *testing.T) {
	tm := newTestMonitor(t, func(o *Options) {
		o.FailThreshold = 3
		o.Apps[1].FailThreshold = 1
	})
	for _, a := range []string{"checkout", "search"} {
		tm.src.Set(a, StatusUp, 0)
	}
	tm.scrape(t)
	for _, a := range []string{"checkout", "search"} {
		tm.src.Set(a, StatusDown, 0)
	}
	tm.scrape(t)
	s := tm.snap.Load()
	if s.apps[0].status() != StatusUp || s.apps[1].status() != StatusDown {
		t.Errorf("after one down check: checkout %s (threshold 3), search %s (threshold 1); want up, down", s.apps[0].status(), s.apps[1].status())
	}
}

func TestFlapDampingOptionsErrors(t *testing.T) {
	for _, f := range []func(*Options){
		func(o *Options) { o.FailThreshold = -1 },
		func(o *Options) { o.SuccessThreshold = -1 },
		func(o *Options) { o.Apps[0].FailThreshold = -2 },
	} {
		o := Options{Locations: []Location{telAviv}, Apps: []App{{Name: "a", Location: "Tel Aviv", Metric: "up"}},
			Source: SourceFunc(func(context.Context, App) Result { return Result{} })}
		f(&o)
		if _, err := New(o); err == nil || !strings.Contains(err.Error(), "Threshold") {
			t.Errorf("New: %v, want a threshold error", err)
		}
	}
}
