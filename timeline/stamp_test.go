package timeline

import (
	"testing"
	"time"
)

// A check that finds the state of the last one again changes only a
// view's stamp, so a view kept from before reads, with the new stamp, as
// the record does now; any other change makes the views differ.
func TestStampSteadyCheck(t *testing.T) {
	t0 := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
	const iv = 30 * time.Second
	var r Record
	r.Check(t0, Up, 2*iv)
	r.Check(t0.Add(iv), Up, 2*iv)
	for k, tt := range []struct {
		s    State
		same bool
	}{{Up, true}, {Up, true}, {Down, false}, {Down, false}, {Down, true}, {Up, false},
		{Unknown, false}, {Unknown, true}, {Unknown, true}, {Up, false}, {Up, false}, {Up, true}} {
		before := r.View()
		r.Check(t0.Add(time.Duration(k+2)*iv), tt.s, 2*iv)
		now := r.View()
		got := before.WithStamp(now.Stamp())
		if got.Same(now) != tt.same {
			t.Errorf("check %d (%v): Same = %v, want %v", k, tt.s, !tt.same, tt.same)
		}
		if tt.same {
			a, _ := got.AppendBinary(nil)
			b, _ := now.AppendBinary(nil)
			if string(a) != string(b) {
				t.Errorf("check %d: a restamped view encodes otherwise", k)
			}
		}
	}
	if v := r.View(); !v.Same(r.View()) {
		t.Error("two views of an unchanged record differ")
	}
}
