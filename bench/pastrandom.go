package main

import (
	"math/rand/v2"
	"slices"
	"time"

	"github.com/availmon/availmon/internal/ledger"
	"github.com/availmon/availmon/timeline"
)

// The lengths of -past-random's outages: uniform between these, in whole
// seconds.
const (
	randomOutageMin = time.Minute
	randomOutageMax = 20 * time.Minute
	// maxRandomOutages is the most outages of the longest length, with a
	// second before, between and after them, a day holds.
	maxRandomOutages = int((24*time.Hour/time.Second - 1) / (randomOutageMax/time.Second + 1))
)

// randomDayOutages is app's k outages of the day (days after the epoch of
// the synthetic past) as offsets into the day: their lengths uniform in
// [randomOutageMin, randomOutageMax], their starts uniform over what the
// lengths leave of the day, sorted, at least a second apart and inside
// the day. The seed is the app and the day, so that runs place them alike.
func randomDayOutages(app, day, k int) []dayOutage {
	if k <= 0 {
		return nil
	}
	rng := rand.New(rand.NewPCG(uint64(app), uint64(day)))
	lo, hi := int64(randomOutageMin/time.Second), int64(randomOutageMax/time.Second)
	lens := make([]int64, k)
	free := int64(24*time.Hour/time.Second) - int64(k+1) // a second before, between and after
	for j := range lens {
		lens[j] = lo + rng.Int64N(hi-lo+1)
		free -= lens[j]
	}
	// k points uniform over the free time, sorted: the gaps between them
	// are the time up before each outage, less the second kept between.
	pts := make([]int64, k)
	for j := range pts {
		pts[j] = rng.Int64N(free + 1)
	}
	slices.Sort(pts)
	out := make([]dayOutage, k)
	var used int64 // the outages' lengths and the seconds kept before them
	for j := range out {
		used++
		out[j] = dayOutage{from: time.Duration(pts[j]+used) * time.Second, len: time.Duration(lens[j]) * time.Second}
		used += lens[j]
	}
	return out
}

// dayOutage is an outage of a synthetic day: it begins from into the day
// and lasts len.
type dayOutage struct{ from, len time.Duration }

// pastChunkSpans bounds the spans fillRandom gives the ledger at once:
// about 200 MB of them. Each fill rewrites every record whole, so fewer,
// larger fills are faster.
const pastChunkSpans = 4 << 20

// fillRandom writes p's days from start into l's apps (n, as laid out)
// with the outages at random times (randomDayOutages), up between them,
// through the ledger's Fill, which derives the locations' records from
// their apps' as the cycles would: a cycle at every app's every change
// would cost a check of every app each time.
func fillRandom(l *ledger.Ledger, p past, n int, start time.Time) {
	perDay := n * (2*p.outagesOf(0) + 1)
	most := p.chunkSpans
	if most <= 0 {
		most = pastChunkSpans
	}
	chunk := max(1, most/max(perDay, 1))
	apps := make([][]timeline.Span, n)
	for d0 := 0; d0 < p.days; d0 += chunk {
		d1 := min(d0+chunk, p.days)
		for i := range n {
			apps[i] = appendRandomDays(apps[i][:0], i, p.outagesOf(i), start, d0, d1)
		}
		l.Fill(ledger.Past{From: start.AddDate(0, 0, d0), To: start.AddDate(0, 0, d1), Apps: apps})
	}
}

// appendRandomDays appends to dst app's spans over days [d0, d1) after
// start: k outages a day at random, up the rest of the time.
func appendRandomDays(dst []timeline.Span, app, k int, start time.Time, d0, d1 int) []timeline.Span {
	up := start.AddDate(0, 0, d0) // where the time up since the last outage began
	for d := d0; d < d1; d++ {
		day := start.AddDate(0, 0, d)
		for _, o := range randomDayOutages(app, d, k) {
			from, to := day.Add(o.from), day.Add(o.from+o.len)
			dst = append(dst, timeline.Span{From: up, To: from, State: timeline.Up},
				timeline.Span{From: from, To: to, State: timeline.Down})
			up = to
		}
	}
	return append(dst, timeline.Span{From: up, To: start.AddDate(0, 0, d1), State: timeline.Up})
}
