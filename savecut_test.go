package availmon

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/availmon/availmon/internal/history"
	"github.com/availmon/availmon/internal/statefile"
	"github.com/google/go-cmp/cmp"
)

// cutFleet is a monitor of apps apps, over more than one chunk of 24-hour
// windows, with histories of 4 checks, whose source answers every app
// differently each minute: status, response time and error text all move,
// so that the states after two cycles differ in every part.
func cutFleet(t *testing.T, apps int) *testMonitor {
	t.Helper()
	tm := newStoreMonitor(t, &memStore{}, newFakeClock(t0), func(o *Options) {
		o.HistorySize = 4
		o.Apps = nil
		for i := range apps {
			name := fmt.Sprintf("app-%04d", i)
			loc := []Location{telAviv, frankfurt}[i%2].Name
			o.Apps = append(o.Apps, App{Name: name, Location: loc, Metric: fmt.Sprintf(`up{job=%q}`, name)})
		}
	})
	tm.src.check = func(_ context.Context, apps []App) ([]Result, error) {
		minute := int(tm.clock.Now().Unix() / 60)
		out := make([]Result, len(apps))
		for i, a := range apps {
			k := minute + int(a.Name[len(a.Name)-1]) + int(a.Name[len(a.Name)-2])
			out[i] = Result{Status: []Status{StatusUp, StatusDown, StatusUnavailable}[k%3],
				ResponseTime: time.Duration(k%7+1) * time.Millisecond}
			if out[i].Status == StatusUnavailable {
				out[i].Err = fmt.Errorf("dial tcp 10.0.0.1:%d: i/o timeout", 40000+minute%5)
			}
		}
		return out, nil
	}
	return tm
}

// cutDiff is "" when saved is the state ref with, at most, the oldest checks
// of some apps' histories left out (savecut.go: a check a cycle dropped
// after the cut), and otherwise what differs. lost counts the checks left
// out.
func cutDiff(ref, saved *statefile.State) (diff string, lost int) {
	got := *saved
	got.SavedAt = ref.SavedAt
	got.Apps = slices.Clone(saved.Apps)
	if len(got.Apps) != len(ref.Apps) {
		return fmt.Sprintf("%d apps, want %d", len(got.Apps), len(ref.Apps)), 0
	}
	for i := range got.Apps {
		want, have := ref.Apps[i].Checks, got.Apps[i].Checks
		if len(have) > len(want) {
			return fmt.Sprintf("%s: %d checks, more than the %d of the cut", ref.Apps[i].Name, len(have), len(want)), 0
		}
		skip := len(want) - len(have)
		if !slices.Equal(want[skip:], have) {
			return fmt.Sprintf("%s: the checks are not the newest of the cut's (-cut +saved):\n%s",
				ref.Apps[i].Name, cmp.Diff(want[skip:], have)), 0
		}
		lost += skip
		got.Apps[i].Checks = want
	}
	// Equal encodings first: comparing hundreds of apps field by field,
	// for each state saved, is slow under -race.
	if bytes.Equal(encodeState(ref), encodeState(&got)) {
		return "", lost
	}
	return cmp.Diff(ref, &got, stateCmp), lost
}

// A cycle between a save's cut and its encoding of the apps changes every
// app's window, history and last state, drops each history's oldest check
// and, the clock being set back, re-dates them all: the save still holds
// the state of the cut, less the dropped checks, at their times then.
func TestSaveCutCycleBetween(t *testing.T) {
	tm := cutFleet(t, 3*dayChunkApps+7)
	for range 6 {
		tm.scrape(t)
		tm.clock.Advance(time.Minute)
	}
	want := tm.copyState()

	tm.persist.encoding.Lock()
	e := statefile.NewEncoder(nil)
	tm.cycleMu.Lock()
	c := tm.cut(e, nil)
	tm.cycleMu.Unlock()
	tm.clock.Step(-2 * time.Hour)
	tm.scrape(t)
	tm.encodeCut(e, c)
	data := e.Bytes()
	tm.persist.encoding.Unlock()

	if after := tm.copyState(); cmp.Equal(after.Apps[0].Day, want.Apps[0].Day, stateCmp) {
		t.Fatal("the cycle between did not change the windows: the fixture tests nothing")
	}
	got, err := decodeState(data)
	if err != nil {
		t.Fatal(err)
	}
	diff, lost := cutDiff(want, got)
	if diff != "" {
		t.Fatalf("the save differs from the state at its cut:\n%s", diff)
	}
	if lost != len(want.Apps) {
		t.Errorf("%d checks left out, want one per app (%d): each history dropped its oldest", lost, len(want.Apps))
	}
	// The cut's windows were the writer's to keep; the save took them and
	// left no chunk held.
	for k := range c.st.days.chunks {
		if ch := &c.st.days.chunks[k]; ch.pending.Load() || ch.saved.Len() != 0 {
			t.Errorf("chunk %d still held after the save: pending %v, %d saved", k, ch.pending.Load(), ch.saved.Len())
		}
	}
}

// Saves run while cycles go on, as a Run's saver does: every state saved is
// the state after one of the cycles (or before the first), but for the
// oldest checks of histories that a cycle dropped while the save encoded
// the apps. Run it under -race: the encoding reads what the cycles write.
func TestSaveConsistentWithConcurrentCycles(t *testing.T) {
	tm := cutFleet(t, 2*dayChunkApps+3)
	const cycles = 40
	refs := []*statefile.State{tm.copyState()} // refs[k]: the state after k cycles
	done := make(chan struct{})
	var saves [][]byte
	go func() {
		defer close(done)
		for i := range cycles {
			if i == cycles/2 {
				tm.clock.Step(-time.Hour) // histories and windows re-dated
			}
			if err := tm.Scrape(context.Background()); err != nil {
				t.Error(err)
				return
			}
			refs = append(refs, tm.copyState())
			tm.clock.Advance(time.Minute)
		}
	}()
collect:
	for len(saves) < 200 {
		select {
		case <-done:
			break collect
		default:
		}
		saves = append(saves, tm.encodeLive(0))
	}
	<-done
	lostTotal := 0
	for n, data := range saves {
		got, err := decodeState(data)
		if err != nil {
			t.Fatal(err)
		}
		var diffs []string
		found := false
		for _, ref := range refs {
			d, lost := cutDiff(ref, got)
			if d == "" {
				found, lostTotal = true, lostTotal+lost
				break
			}
			diffs = append(diffs, d)
		}
		if !found {
			t.Fatalf("save %d of %d is the state after no cycle; against the last:\n%s", n, len(saves), diffs[len(diffs)-1])
		}
	}
	t.Logf("%d saves during %d cycles, %d checks left out in all", len(saves), cycles, lostTotal)
}

// A cycle changes every app's 24-hour window through editDay: the copy it
// hands to the change must not be a heap allocation an app a cycle (232
// bytes each, 23 MB of garbage a cycle at 100,000 apps).
func TestEditDayAllocatesNothing(t *testing.T) {
	st := &cycleState{appDay: history.MakeAppDays(2)}
	at := time.Date(2026, 11, 26, 8, 0, 0, 0, time.UTC)
	allocs := testing.AllocsPerRun(100, func() {
		at = at.Add(time.Minute)
		st.editDay(1, func(w *history.AppDay) { w.Add(at, history.Up, time.Millisecond) })
	})
	if allocs != 0 {
		t.Errorf("editDay allocates %.0f times a call, want none", allocs)
	}
	if w := st.appDay.At(1); w.Sum(at).Up == 0 {
		t.Error("the changes editDay made are not in the window")
	}
}
