package backfill

import (
	"math/bits"
	"slices"
	"testing"
	"time"

	"github.com/availmon/availmon/timeline"
)

// pacedBackend is a fake source that takes cost of its clock per
// app-instant a question reads, beside cycles that begin every gap and
// last cycle: a question still running when a cycle begins is interrupted
// (ErrInterrupted) and its time until then lost, as cyclegate does to the
// monitor's backfill. It logs every question.
type pacedBackend struct {
	t          *testing.T
	now        time.Time
	cost       time.Duration // per app-instant
	gap, cycle time.Duration
	apps       int
	truth      []pastTruth
	asked      []question
}

type question struct {
	appInstants int
	wall        time.Duration
	interrupted bool
}

func (b *pacedBackend) clock() time.Time { return b.now }

// wait waits for the next cycle's end when wall does not fit before it.
func (b *pacedBackend) wait(wall time.Duration) {
	if next := b.now.Truncate(b.gap).Add(b.gap); b.now.Add(wall).After(next) {
		b.now = next.Add(b.cycle)
	}
}

func (b *pacedBackend) ask(r Range, take func(State)) error {
	// Cycles begin at the multiples of gap (from the zero time) and run
	// cycle long: a question waits for the running one to end.
	if since := b.now.Sub(b.now.Truncate(b.gap)); since < b.cycle {
		b.now = b.now.Add(b.cycle - since)
	}
	apps := r.Apps
	if apps == nil {
		for i := range b.apps {
			apps = append(apps, i)
		}
	}
	n := len(apps) * steps(r) * int(r.Window/r.Resolution)
	wall := time.Duration(n) * b.cost
	next := b.now.Truncate(b.gap).Add(b.gap)
	if b.now.Add(wall).After(next) {
		b.asked = append(b.asked, question{n, next.Sub(b.now), true})
		b.now = next
		return ErrInterrupted
	}
	b.asked = append(b.asked, question{n, wall, false})
	b.now = b.now.Add(wall)
	for at := r.Start; !at.After(r.End); at = at.Add(r.Step) {
		for _, i := range apps {
			take(countInstants(b.truth[i], i, at, r.Window, r.Resolution))
		}
	}
	return nil
}

// check compares what Refine learnt with the truth, instant by instant.
func (b *pacedBackend) check(a *Answers, from, to time.Time, res time.Duration) {
	b.t.Helper()
	for i, tr := range b.truth {
		for at := from; at.Before(to); at = at.Add(res) {
			if got, want := pastTruth(a.Spans[i]).at(at), tr.at(at); got != want {
				b.t.Fatalf("app %d at %s: learnt %v, truth %v", i, at, got, want)
			}
		}
	}
}

// newPaced is a backend of apps over the 30 days before t0, each app down
// for an hour and a half once in a while, and a 30 days' need.
func newPaced(t *testing.T, apps int, cost time.Duration) (*pacedBackend, time.Time, time.Time, map[int64]bool) {
	to := t0.Truncate(24 * time.Hour)
	from := to.Add(-30 * 24 * time.Hour)
	b := &pacedBackend{t: t, now: t0, cost: cost, gap: 5 * time.Second, cycle: 100 * time.Millisecond, apps: apps}
	for i := range apps {
		down := from.Add(time.Duration(i*37%(30*24)) * time.Hour)
		tr := pastTruth{{From: from, To: down, State: timeline.Up}, {From: down, To: down.Add(90 * time.Minute), State: timeline.Down},
			{From: down.Add(90 * time.Minute), To: to, State: timeline.Up}}
		if i%7 == 0 {
			tr = pastTruth{{From: from, To: to, State: timeline.Up}}
		}
		b.truth = append(b.truth, tr)
	}
	need := map[int64]bool{}
	for d := from; d.Before(to); d = d.Add(24 * time.Hour) {
		need[d.Unix()] = true
	}
	return b, from, to, need
}

// Questions are bounded by the sizer's app-instants from the first one
// (never refused first), and once the backend's pace is known, sized to
// end within the target: none after the first is interrupted, and none
// takes more than the target.
func TestRefineSizesQuestionsToTheCycles(t *testing.T) {
	b, from, to, need := newPaced(t, 500, 2*time.Microsecond) // a day of every app: 1.4 s
	sz := &Sizer{Budget: Budget, Apps: 500, Most: 2_000_000, Target: b.gap / 2, Now: b.clock, Wait: b.wait}
	a, err := Refine(from, to, time.Minute, sz, need, b.ask, nil)
	if err != nil {
		t.Fatal(err)
	}
	b.check(a, from, to, time.Minute)
	for i, q := range b.asked {
		if q.appInstants > sz.Most {
			t.Errorf("question %d reads %d app-instants, over %d", i, q.appInstants, sz.Most)
		}
		if i > 0 && (q.interrupted || q.wall > sz.Target) {
			t.Errorf("question %d of %d app-instants took %s (interrupted %v), over the target %s",
				i, q.appInstants, q.wall, q.interrupted, sz.Target)
		}
	}
	t.Logf("%d questions, %s", len(b.asked), b.now.Sub(t0))
}

// A question a cycle interrupts is asked again in halves, not whole: the
// backfill converges even where the backend is so slow that its first
// questions outlast the gap between cycles, and learns the truth.
func TestRefineInterruptedQuestionsConverge(t *testing.T) {
	b, from, to, need := newPaced(t, 200, 50*time.Microsecond) // a day of every app: 14 s
	sz := &Sizer{Budget: Budget, Apps: 200, Most: AppInstants, Target: b.gap / 2, Now: b.clock, Wait: b.wait}
	a, err := Refine(from, to, time.Minute, sz, need, func(r Range, take func(State)) error {
		if len(b.asked) > 2_000 {
			t.Fatalf("still asking after %d questions: %+v", len(b.asked), r)
		}
		return b.ask(r, take)
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b.check(a, from, to, time.Minute)
	interrupted := slices.IndexFunc(b.asked, func(q question) bool { return q.interrupted })
	if interrupted < 0 {
		t.Fatal("no question was interrupted: the test does not test")
	}
	var n int
	for _, q := range b.asked {
		if q.interrupted {
			n++
		}
	}
	// Each interruption halves: the first question (all 30 days of every
	// app, 432 s) comes down to the gap (5 s) in log2(432/5) halvings.
	first := time.Duration(b.asked[0].appInstants) * b.cost
	if most := bits.Len(uint(first/b.gap)) + 1; n > most {
		t.Errorf("%d questions interrupted, want at most %d (halving after each)", n, most)
	}
	t.Logf("%d questions, %d interrupted, %s", len(b.asked), n, b.now.Sub(t0))
}
