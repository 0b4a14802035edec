package timeline

import (
	"testing"
	"time"
)

// regularOutages is a record of days of 10 outages of 10 minutes each,
// spread evenly over every day, as the bench's synthetic past has them.
func regularOutages(days int) Record {
	var r Record
	start := fleetEnd.AddDate(0, 0, -days)
	hold := 24*time.Hour + time.Second
	gap := 24 * time.Hour / 11
	for d := range days {
		day := start.AddDate(0, 0, d)
		r.Check(day, Up, hold)
		for k := 1; k <= 10; k++ {
			at := day.Add(time.Duration(k) * gap)
			r.Check(at, Down, hold)
			r.Check(at.Add(10*time.Minute), Up, hold)
		}
	}
	r.Check(fleetEnd, Up, hold)
	return r
}

// bytesPerChange returns the stream bytes of records over their changes.
func bytesPerChange(t *testing.T, rs []Record) float64 {
	t.Helper()
	var bytes, changes int
	for i := range rs {
		v := rs[i].View()
		bytes += len(v.data)
		var m cursor
		for int(m.off) < len(v.data) || m.run.left > 0 {
			if err := readToken(v.data, &m); err != nil {
				t.Fatal(err)
			}
			changes++
		}
	}
	return float64(bytes) / float64(changes)
}

// The worst case's changes (every app with 10 outages a day for 400 days)
// cost at most 1.6 bytes each, outages at random times (each a second to
// 30 minutes long) or spread evenly; the day being written, in tokens, is
// a small part of that.
func TestBytesPerChange(t *testing.T) {
	for _, tt := range []struct {
		name string
		rs   []Record
		most float64
	}{
		{"random outages", fleet(100, 100, 400, 10), 1.6},
		{"regular outages", []Record{regularOutages(400)}, 1.0},
		{"one outage a day", fleet(100, 100, 400, 1), 2.1},
	} {
		got := bytesPerChange(t, tt.rs)
		t.Logf("%s: %.3f bytes a change", tt.name, got)
		if got > tt.most {
			t.Errorf("%s: %.3f bytes a change, want at most %.2f", tt.name, got, tt.most)
		}
	}
}
