package timeline

import (
	"math/rand/v2"
	"time"
)

// fleetEnd is the instant synthetic fleets end at.
var fleetEnd = time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)

// fleet returns n records of days of history ending at fleetEnd, checked
// once a day (the record's cost does not depend on how often an app is
// checked while its state stays). The first withOutages records have
// outages a day, each one a second to 30 minutes long at a random time.
func fleet(n, withOutages, days, outages int) []Record {
	rng := rand.New(rand.NewPCG(1, 2))
	rs := make([]Record, n)
	start := fleetEnd.AddDate(0, 0, -days)
	for i := range rs {
		r := &rs[i]
		for d := range days {
			day := start.AddDate(0, 0, d)
			if i >= withOutages {
				r.Check(day, Up, 25*time.Hour)
				continue
			}
			slot := 24 * time.Hour / time.Duration(outages)
			for k := range outages {
				at := day.Add(time.Duration(k) * slot)
				r.Check(at, Up, slot)
				down := at.Add(time.Duration(rng.Int64N(int64(slot / 2))))
				r.Check(down, Down, slot)
				r.Check(down.Add(time.Duration(1+rng.IntN(30*60))*time.Second), Up, slot)
			}
		}
		r.Check(fleetEnd, Up, time.Minute)
	}
	return rs
}
