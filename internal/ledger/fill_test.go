package ledger

import (
	"testing"
	"time"

	"github.com/availmon/availmon/timeline"
	"github.com/google/go-cmp/cmp"
)

func sp(from, to time.Duration, s timeline.State) timeline.Span {
	return timeline.Span{From: t0.Add(from), To: t0.Add(to), State: s}
}

// svcAnyUp is the quorum of one: up while any app is up.
func svcAnyUp(si int, state func(int) timeline.State) timeline.State {
	down := false
	for _, ai := range layout().Services[si].Apps {
		switch state(ai) {
		case U:
			return U
		case D:
			down = true
		}
	}
	if down {
		return D
	}
	return N
}

// A backfilled day before the instance ran: x down 2h-4h with a
// maintenance window 2h30-3h inside the outage, y without data 6h-7h, z
// up. Then the instance observes x down from 10h on: Fill saying up
// there must not overwrite it.
func TestFillBackfilledTime(t *testing.T) {
	l := New(Options{})
	h := time.Hour
	ws := []Window{{Key: "w", From: t0.Add(150 * time.Minute), To: t0.Add(3 * h), Apps: func() []int { return []int{0} }}}
	l.SetLayout(t0, layout(), ws)
	l.Sync(t0, ws, nil)
	for k := range 4 {
		cycle(l, t0.Add(10*h+time.Duration(k)*iv), D, U, U)
	}
	live := t0.Add(10*h + 2*time.Minute)
	l.Fill(Past{From: t0, To: live, Service: svcAnyUp, Apps: [][]timeline.Span{
		{sp(0, 2*h, U), sp(2*h, 4*h, D), sp(4*h, 11*h, U)},
		{sp(0, 6*h, U), sp(7*h, 11*h, U)},
		{sp(0, 11*h, U)},
	}})
	b := l.Book(live)
	q := Query{From: t0, To: live}
	x := b.App(0, q)
	want := timeline.Totals{Up: 8 * h, Down: 90*time.Minute + 2*time.Minute, Maintenance: 30 * time.Minute,
		Unknown: 0}
	if diff := cmp.Diff(want, x.Totals, cmpTotals); diff != "" {
		t.Errorf("x (-want +got):\n%s", diff)
	}
	outs := b.Outages(App, 0, t0, live)
	if len(outs) != 2 || !outs[0].Start.Equal(t0.Add(2*h)) || !outs[0].End.Equal(t0.Add(4*h)) || !outs[0].Maintenance {
		t.Errorf("x outages: %+v", outs)
	}
	y := b.App(1, q)
	if y.Unknown != h || y.Down != 0 {
		t.Errorf("y: %+v", y.Totals)
	}
	// Location a: x and y; partial while x was down outside maintenance
	// and y up, as a cycle's tally leaves an app in maintenance out: the
	// window splits the backfilled outage in two, then the live one.
	a := b.Location(0, b.LocationApps(0), q)
	if a.Downtime != 90*time.Minute+2*time.Minute || a.Outages != 3 {
		t.Errorf("location a: downtime %v, outages %d", a.Downtime, a.Outages)
	}
	s := b.Service(0, q)
	if s.Down != 0 || s.Up != 10*h+2*time.Minute {
		t.Errorf("service: %+v", s.Totals)
	}
}

// cmpTotals compares the time by state, the flags left out.
var cmpTotals = cmp.Comparer(func(a, b timeline.Totals) bool {
	return a.Up == b.Up && a.Down == b.Down && a.Maintenance == b.Maintenance && a.Unknown == b.Unknown
})

// Filling the same past twice changes nothing: two backfills (a restart
// during one) give the figures of one.
func TestFillTwice(t *testing.T) {
	l := New(Options{})
	l.SetLayout(t0, layout(), nil)
	p := Past{From: t0, To: t0.Add(3 * time.Hour), Apps: [][]timeline.Span{{sp(0, time.Hour, U), sp(time.Hour, 2*time.Hour, D)}}}
	l.Fill(p)
	first := l.Book(t0.Add(3*time.Hour)).App(0, Query{From: t0, To: t0.Add(3 * time.Hour)})
	l.Fill(p)
	second := l.Book(t0.Add(3*time.Hour)).App(0, Query{From: t0, To: t0.Add(3 * time.Hour)})
	if diff := cmp.Diff(first, second); diff != "" {
		t.Errorf("(-first +second):\n%s", diff)
	}
}
