package timeline

import (
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var day0 = time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)

// flaps records n changes from Up to Down and back, 5 minutes apart,
// starting at 00:02:30 of day0: each down period lasts 2.5 minutes.
func flaps(r *Record, n int) {
	for i := range n {
		st := Down
		if i%2 == 1 {
			st = Up
		}
		r.Check(day0.Add(150*time.Second+time.Duration(i)*150*time.Second), st, 10*m)
	}
}

func TestFlappingDay(t *testing.T) {
	for _, tt := range []struct {
		name   string
		checks int
		approx bool
	}{
		{"at most ExactChangesPerDay changes stay exact", ExactChangesPerDay - 1, false}, // the first check is a change too
		{"one more and the day keeps buckets", ExactChangesPerDay + 1, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var r Record
			r.Check(day0, Up, 10*m)
			flaps(&r, tt.checks)
			r.Check(day0.Add(26*h), Up, m) // past the day: it is finished
			v := r.View()
			// Down from 00:02:30 for 2.5 minutes of every 5.
			tot := v.Totals(day0, day0.Add(2*h))
			want := Totals{Up: h, Down: h, Approximate: tt.approx}
			if diff := cmp.Diff(want, tot); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			outs := v.Outages(day0, day0.Add(30*m))
			if !tt.approx {
				if len(outs) != 6 || outs[0].Start != day0.Add(150*time.Second) || outs[0].Duration != 150*time.Second {
					t.Errorf("exact outages %+v", outs)
				}
				return
			}
			// Each quarter hour has three outages that begin in it, the last
			// one ending with it.
			want2 := []Outage{
				{Start: day0, End: day0.Add(15 * m), Duration: 7*m + 30*s, Full: true, Count: 3, Approximate: true},
				{Start: day0.Add(15 * m), End: day0.Add(30 * m), Duration: 7*m + 30*s, Full: true, Count: 3, Approximate: true},
			}
			if diff := cmp.Diff(want2, outs); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// A day that flaps while it is written keeps its buckets live; queries
// over it and across a restart say the same at 15-minute edges.
func TestFlappingLiveDay(t *testing.T) {
	var r Record
	r.Check(day0, Up, 10*m)
	flaps(&r, 200)
	before := r.View()
	wantB := before.Totals(day0, day0.Add(8*h+15*m))
	flaps2 := func(r *Record) {
		for i := range 20 {
			r.Check(day0.Add(9*h+time.Duration(i)*time.Minute), []State{Up, Down}[i%2], 2*m)
		}
	}
	flaps2(&r)
	if got := before.Totals(day0, day0.Add(8*h+15*m)); got != wantB {
		t.Errorf("a view changed as the record went on: %+v, then %+v", wantB, got)
	}
	restart(&r)
	var again Record
	again.Check(day0, Up, 10*m)
	flaps(&again, 200)
	flaps2(&again)
	for _, to := range []time.Duration{15 * m, 8*h + 15*m, 9*h + 15*m, 10 * h, 24 * h} {
		a, b := r.View().Totals(day0, day0.Add(to)), again.View().Totals(day0, day0.Add(to))
		if a != b || !a.Approximate {
			t.Errorf("to %v: after a restart %+v, without %+v", to, a, b)
		}
	}
}

// Readers query views while the writer goes on, turns days to buckets and
// rewrites the past: run with -race.
func TestViewsWhileWriting(t *testing.T) {
	var r Record
	views := make(chan View, 64)
	var wg sync.WaitGroup
	wg.Go(func() {
		for v := range views {
			v.Totals(day0, day0.Add(72*h))
			v.Outages(day0, day0.Add(72*h))
			b, _ := v.AppendBinary(nil)
			var n Record
			if err := n.UnmarshalBinary(b); err != nil {
				t.Error(err)
			}
		}
	})
	for i := range 3000 {
		r.Check(day0.Add(time.Duration(i)*time.Minute), []State{Up, Down, Up, Unknown}[i%4], 2*m)
		if i%300 == 0 {
			r.SetMaintenance(day0.Add(time.Duration(i-100)*time.Minute), day0.Add(time.Duration(i+100)*time.Minute), true)
		}
		if i%50 == 0 {
			views <- r.View()
		}
	}
	close(views)
	wg.Wait()
}
