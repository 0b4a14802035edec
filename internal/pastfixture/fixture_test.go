package pastfixture

import (
	"testing"
	"time"
)

// The fixture reaches back over Berlin's last change of summer time, at
// least 100 days, has checkout down across the start of the month on
// Berlin's clocks, and its model counts every second of a range once.
func TestFixture(t *testing.T) {
	now := time.Date(2026, 11, 26, 1, 2, 3, 0, time.UTC)
	f := New(now)
	if want := time.Date(2026, 10, 25, 1, 0, 0, 0, time.UTC); !f.DSTChange.Equal(want) {
		t.Errorf("DSTChange %s, want %s", f.DSTChange, want)
	}
	if now.Sub(f.Start) < 100*24*time.Hour || !f.Start.Before(f.DSTChange) {
		t.Errorf("Start %s", f.Start)
	}
	from, to := now.Add(-30*24*time.Hour), now
	for _, a := range f.Apps {
		x := f.AppFigures(a.Name, from, to)
		if x.Up+x.Down+x.Unknown+x.Maintenance != int64(to.Sub(from)/time.Second) {
			t.Errorf("%s: %+v does not add up to the range", a.Name, x)
		}
	}
	if b := f.AppFigures("billing", from, to); b.Maintenance != 1800 || len(b.Outages) == 0 {
		t.Errorf("billing: %+v", b)
	}
	berlin := mustBerlin()
	for _, m := range []time.Month{time.October, time.November} {
		start := time.Date(2026, m, 1, 0, 0, 0, 0, berlin)
		if x := f.AppFigures("checkout", start, time.Date(2026, m, 1, 0, 0, 0, 0, time.UTC)); x.Down != 45*60 {
			t.Errorf("checkout from Berlin's to UTC's start of %s: %+v, want 45 minutes down", m, x)
		}
	}
}
