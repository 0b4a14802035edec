package timeline

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var t0 = time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)

func at(d time.Duration) time.Time { return t0.Add(d) }

const (
	s = time.Second
	m = time.Minute
	h = time.Hour
)

// op is one change to a record, for table tests.
type op func(r *Record)

func check(d time.Duration, st State, hold time.Duration) op {
	return func(r *Record) { r.Check(at(d), st, hold) }
}

func fill(a, b time.Duration, st State) op {
	return func(r *Record) { r.Fill(Span{From: at(a), To: at(b), State: st}) }
}

func maint(a, b time.Duration, on bool) op {
	return func(r *Record) { r.SetMaintenance(at(a), at(b), on) }
}

func restart(r *Record) {
	b, err := r.View().AppendBinary(nil)
	if err != nil {
		panic(err)
	}
	var n Record
	if err := n.UnmarshalBinary(b); err != nil {
		panic(err)
	}
	*r = n
}

func TestTotals(t *testing.T) {
	for _, tt := range []struct {
		name     string
		ops      []op
		from, to time.Duration
		want     Totals
	}{
		{"a check holds until the next", []op{check(0, Up, 2*m), check(m, Down, 2*m), check(2*m, Up, 2*m)},
			0, 3 * m, Totals{Up: 2 * m, Down: m}},
		{"and at most its hold, then unknown", []op{check(0, Up, 2*m), check(10*m, Down, 2*m)},
			0, 15 * m, Totals{Up: 2 * m, Down: 2 * m, Unknown: 11 * m}},
		{"the last check holds into the future", []op{check(0, Down, 2*m)},
			-m, m, Totals{Down: m, Unknown: m}},
		{"a check made before the last is ignored", []op{check(m, Up, 2*m), check(0, Down, h)},
			0, 3 * m, Totals{Up: 2 * m, Unknown: m}},
		{"a check in the same second replaces the last", []op{check(0, Up, 2*m), check(500*time.Millisecond, Down, 2*m)},
			0, 3 * m, Totals{Down: 2 * m, Unknown: m}},
		{"an unknown check result is unknown time", []op{check(0, Unknown, 2*m), check(m, Up, 2*m)},
			0, 3 * m, Totals{Up: 2 * m, Unknown: m}},
		{"fill writes unknown time only", []op{check(0, Up, m), check(10*m, Up, m), fill(-m, 20*m, Down)},
			-m, 12 * m, Totals{Up: 2 * m, Down: 11 * m}},
		{"fill over a check's unknown result", []op{check(0, Unknown, 10*m), fill(0, 10*m, Up)},
			0, 10 * m, Totals{Up: 10 * m}},
		{"a check wins over what fill put after it", []op{check(0, Up, m), fill(0, h, Down), check(10*m, Up, 5*m)},
			0, 20 * m, Totals{Up: 6 * m, Down: 14 * m}},
		{"where fills overlap the earlier start wins", []op{func(r *Record) {
			r.Fill(Span{From: at(5 * m), To: at(20 * m), State: Down}, Span{From: at(0), To: at(10 * m), State: Up})
		}}, 0, 20 * m, Totals{Up: 10 * m, Down: 10 * m}},
		{"maintenance set ahead applies to checks", []op{maint(m, 3*m, true), check(0, Down, h), check(2*m, Down, h), check(4*m, Up, h)},
			0, 5 * m, Totals{Down: 2 * m, Up: m, Maintenance: 2 * m}},
		{"maintenance of the past", []op{check(0, Down, h), check(30*m, Up, h), maint(10*m, 20*m, true)},
			0, 40 * m, Totals{Down: 20 * m, Up: 10 * m, Maintenance: 10 * m}},
		{"maintenance applies to filled time as to observed", []op{maint(0, 10*m, true), fill(-h, h, Down), check(h, Up, m)},
			-h, h, Totals{Down: 110 * m, Maintenance: 10 * m}},
		{"maintenance is counted whatever the state", []op{maint(0, h, true)},
			0, 2 * h, Totals{Unknown: h, Maintenance: h}},
		{"maintenance taken back", []op{maint(0, h, true), check(0, Up, 2*h), maint(30*m, h, false)},
			0, h, Totals{Up: 30 * m, Maintenance: 30 * m}},
		{"removed: the hold ends there", []op{check(0, Up, h), func(r *Record) { r.SetRemoved(at(10 * m)) }},
			0, h, Totals{Up: 10 * m, Unknown: 50 * m}},
		{"pruned time is unknown", []op{check(0, Up, 2*h), check(h, Up, 2*h), func(r *Record) { r.Prune(at(30 * m)) }},
			0, 2 * h, Totals{Up: 90 * m, Unknown: 30 * m}},
		{"the same after a restart", []op{check(0, Up, h), maint(2*m, 3*m, true), check(5*m, Down, h), restart, check(7*m, Up, m)},
			0, 10 * m, Totals{Up: 5 * m, Down: 2 * m, Maintenance: m, Unknown: 2 * m}},
		{"a location's partial time", []op{check(0, Partial, h), check(m, Down, h), check(2*m, Up, m)},
			0, 3 * m, Totals{Partial: m, Down: m, Up: m}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var r Record
			for _, o := range tt.ops {
				o(&r)
			}
			if diff := cmp.Diff(tt.want, r.View().Totals(at(tt.from), at(tt.to))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestAvailabilityAndCoverage(t *testing.T) {
	for _, tt := range []struct {
		name         string
		t            Totals
		avail, cover float64
		aok, cok     bool
	}{
		{"all up", Totals{Up: h}, 1, 1, true, true},
		{"a quarter down, half unknown", Totals{Up: 3 * m, Down: m, Unknown: 4 * m}, 0.75, 0.5, true, true},
		{"maintenance is left out", Totals{Up: h, Maintenance: 3 * h}, 1, 1, true, true},
		{"nothing known", Totals{Unknown: h}, 0, 0, false, true},
		{"all maintenance", Totals{Maintenance: h}, 0, 0, false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a, aok := tt.t.Availability()
			c, cok := tt.t.Coverage()
			if a != tt.avail || aok != tt.aok || c != tt.cover || cok != tt.cok {
				t.Errorf("availability %v %v, coverage %v %v; want %v %v, %v %v", a, aok, c, cok, tt.avail, tt.aok, tt.cover, tt.cok)
			}
		})
	}
}

// The 90-day bars of a page in Europe/Berlin: steps of 24 hours, and the
// 23-hour day of the change to summer time; two apps summed into their
// location's steps.
func TestAddStepsUnevenDays(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip(err)
	}
	var a, b Record
	start := time.Date(2026, 3, 28, 0, 0, 0, 0, berlin)
	a.Check(start, Up, 72*h)
	b.Check(start, Up, 72*h)
	b.Check(time.Date(2026, 3, 29, 1, 30, 0, 0, berlin), Down, h)
	b.Check(time.Date(2026, 3, 29, 3, 30, 0, 0, berlin), Up, 72*h) // 1:30 to 3:30 is one hour that day
	var bounds []time.Time
	for d := range 4 {
		bounds = append(bounds, start.AddDate(0, 0, d))
	}
	sum := make([]Totals, 3)
	a.View().AddSteps(sum, bounds)
	b.View().AddSteps(sum, bounds)
	want := []Totals{{Up: 48 * h}, {Up: 45 * h, Down: h}, {Up: 48 * h}}
	if diff := cmp.Diff(want, sum); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestAddStepsMisuse(t *testing.T) {
	var r Record
	for _, tt := range []struct {
		name   string
		sum    int
		bounds []time.Time
	}{
		{"a sum short", 1, []time.Time{at(0), at(h), at(2 * h)}},
		{"bounds out of order", 1, []time.Time{at(h), at(0)}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			r.View().AddSteps(make([]Totals, tt.sum), tt.bounds)
		})
	}
}

func TestOutages(t *testing.T) {
	for _, tt := range []struct {
		name     string
		ops      []op
		from, to time.Duration
		want     []Outage
	}{
		{"one, whole though it began before the range", []op{check(0, Up, h), check(10*m, Down, h), check(20*m, Up, h)},
			15 * m, h, []Outage{{Start: at(10 * m), End: at(20 * m), Duration: 10 * m, Full: true, Count: 1}}},
		{"ongoing at the range's end", []op{check(0, Up, h), check(10*m, Down, h)},
			0, 30 * m, []Outage{{Start: at(10 * m), End: at(30 * m), Ongoing: true, Duration: 20 * m, Full: true, Count: 1}}},
		{"ends with its hold", []op{check(0, Up, h), check(10*m, Down, 5*m)},
			0, h, []Outage{{Start: at(10 * m), End: at(15 * m), Duration: 5 * m, Full: true, Count: 1}}},
		{"unknown time splits outages", []op{check(0, Down, 5*m), check(10*m, Down, 5*m)},
			0, h, []Outage{{Start: at(0), End: at(5 * m), Duration: 5 * m, Full: true, Count: 1},
				{Start: at(10 * m), End: at(15 * m), Duration: 5 * m, Full: true, Count: 1}}},
		{"maintenance overlapped", []op{maint(5*m, 6*m, true), check(0, Down, h), check(10*m, Up, h)},
			0, h, []Outage{{Start: at(0), End: at(10 * m), Duration: 10 * m, Maintenance: true, Full: true, Count: 1}}},
		{"filled outage", []op{check(0, Up, m), check(h, Up, m), fill(10*m, 20*m, Down)},
			0, 2 * h, []Outage{{Start: at(10 * m), End: at(20 * m), Duration: 10 * m, Full: true, Count: 1}}},
		{"a location partial, then full", []op{check(0, Partial, h), check(5*m, Down, h), check(6*m, Partial, h), check(10*m, Up, h)},
			0, h, []Outage{{Start: at(0), End: at(10 * m), Duration: 10 * m, Full: true, Count: 1}}},
		{"a location only partial", []op{check(0, Partial, h), check(10*m, Up, h)},
			0, h, []Outage{{Start: at(0), End: at(10 * m), Duration: 10 * m, Count: 1}}},
		{"none before the range", []op{check(0, Down, h), check(10*m, Up, h)},
			10 * m, h, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var r Record
			for _, o := range tt.ops {
				o(&r)
			}
			if diff := cmp.Diff(tt.want, r.View().Outages(at(tt.from), at(tt.to))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestRemoved(t *testing.T) {
	var r Record
	if !r.View().Removed().IsZero() {
		t.Fatal("removed before being marked")
	}
	r.SetRemoved(at(h))
	restart(&r)
	if got := r.View().Removed(); !got.Equal(at(h)) {
		t.Errorf("removed %v, want %v", got, at(h))
	}
	r.SetRemoved(time.Time{})
	if !r.View().Removed().IsZero() {
		t.Error("the mark stayed")
	}
}
