package objectives

import (
	"math"
	"time"

	"github.com/availmon/availmon/objective"
	"github.com/availmon/availmon/period"
	"github.com/availmon/availmon/timeline"
)

// A latency objective counts the checks this process makes: how many of
// an app's answered checks in each 15-minute bucket came within the
// threshold. A bucket's time is good and bad in the share of its checks;
// a bucket without checks is unknown. Past checks filled in from a backend
// have no response time, so nothing is ever backfilled, and the buckets
// live in memory only: a restart begins them empty.

// bucketLen is the length of a latency bucket.
const bucketLen = 15 * time.Minute

// bucket counts the answered checks of a bucket and those within the
// threshold.
type bucket struct{ n, fast uint32 }

// trackKey names a track: one app's checks against one threshold.
type trackKey struct {
	app       string
	threshold time.Duration
}

// track is one app's buckets against one threshold, dense from base: the
// bucket number (unix seconds / 900) of buckets[0]. Only the last bucket is
// ever written after it is appended, so a view that copies the last one
// and keeps the rest as a slice shares them with the writer safely.
type track struct {
	base    int64
	buckets []bucket
	keep    int // buckets kept: the longest time its objectives read
}

// add counts a check at t; one older than the track's last bucket (a clock
// stepped back) is dropped, as that bucket may be shared with readers.
func (t *track) add(at time.Time, fast bool) {
	b := at.Unix() / int64(bucketLen/time.Second)
	switch {
	case len(t.buckets) == 0:
		t.base = b
		t.buckets = append(t.buckets, bucket{})
	case b < t.base+int64(len(t.buckets))-1:
		return
	}
	for gap := b - (t.base + int64(len(t.buckets)) - 1); gap > 0; gap-- {
		t.buckets = append(t.buckets, bucket{})
	}
	last := &t.buckets[len(t.buckets)-1]
	if last.n == ^uint32(0) {
		return
	}
	last.n++
	if fast {
		last.fast++
	}
	if over := len(t.buckets) - t.keep; t.keep > 0 && over > 0 {
		t.buckets = t.buckets[over:]
		t.base += int64(over)
	}
}

// view is an immutable copy of t for readers.
func (t *track) view() latencyView {
	if len(t.buckets) == 0 {
		return latencyView{}
	}
	n := len(t.buckets)
	return latencyView{base: t.base, closed: t.buckets[: n-1 : n-1], last: t.buckets[n-1]}
}

// latencyView is a track as one snapshot saw it: the closed buckets, which
// nobody writes any more, and a copy of the last one.
type latencyView struct {
	base   int64
	closed []bucket
	last   bucket
}

var _ objective.Source = latencyView{}

// at returns bucket number b; the zero bucket (no checks) outside the view.
func (v latencyView) at(b int64) bucket {
	i := b - v.base
	switch {
	case i < 0 || i > int64(len(v.closed)):
		return bucket{}
	case i == int64(len(v.closed)):
		return v.last
	}
	return v.closed[i]
}

// AddSteps adds the time of each step: a bucket's overlap with it good and
// bad in the share of the bucket's checks within the threshold, unknown
// where the bucket has no checks.
func (v latencyView) AddSteps(sum []timeline.Totals, bounds []time.Time) {
	const bl = int64(bucketLen / time.Second)
	first, end := v.base*bl, (v.base+int64(len(v.closed))+1)*bl
	for i := range sum {
		from, to := bounds[i].Unix(), bounds[i+1].Unix()
		if to <= first || from >= end {
			sum[i].Unknown += time.Duration(max(to-from, 0)) * time.Second
			continue
		}
		for from < to {
			b := from / bl
			stop := min((b+1)*bl, to)
			d := time.Duration(stop-from) * time.Second
			if c := v.at(b); c.n == 0 {
				sum[i].Unknown += d
			} else {
				good := time.Duration(math.Round(float64(d) * float64(c.fast) / float64(c.n)))
				sum[i].Up += good
				sum[i].Down += d - good
			}
			from = stop
		}
	}
}

// latencyViews is the time of several tracks added up, as Views is of
// several records.
type latencyViews []latencyView

func (vs latencyViews) AddSteps(sum []timeline.Totals, bounds []time.Time) {
	for _, v := range vs {
		v.AddSteps(sum, bounds)
	}
}

// trackSpec is a track a Set's latency objectives read, and how many
// buckets they read back from now.
type trackSpec struct {
	key  trackKey
	keep int
}

// keepFor is the buckets an objective reads back from now: twice a rolling
// window for Series (each day's own window), a calendar window from its
// start, and 3 days for the burn rates and 7 for a projection, a bucket
// more for the one going on.
func keepFor(w objective.Window) int {
	const day = 24 * time.Hour
	d := 2 * w.Rolling.Duration()
	switch w.Calendar {
	case 0:
		d = max(d, w.Rolling.Duration()+3*day)
	case period.Month:
		d = 31*day + 7*day
	default:
		d = 92*day + 7*day
	}
	return int(d/bucketLen) + 2
}

// tracks binds t to s's tracks: those s still reads keep their buckets,
// new ones begin empty, the others are dropped.
func (t *Tracker) bindTracks(s *Set) {
	if t.trackSet == s {
		return
	}
	next := make(map[trackKey]*track, len(s.tracks))
	t.byID = make([]*track, len(s.tracks))
	for id, sp := range s.tracks {
		tr := t.tracks[sp.key]
		if tr == nil {
			tr = &track{}
		}
		tr.keep = sp.keep
		next[sp.key], t.byID[id] = tr, tr
	}
	t.tracks, t.trackSet = next, s
}

// Check counts app's answered check at at that took rt, against the
// thresholds of s's latency objectives on it. Checks in maintenance and
// those not answered (the app unavailable) are not to be counted: the
// caller leaves them out.
func (t *Tracker) Check(s *Set, app int, at time.Time, rt time.Duration) {
	if s == nil || app >= len(s.latency) || len(s.latency[app]) == 0 {
		return
	}
	t.bindTracks(s)
	for _, id := range s.latency[app] {
		t.byID[id].add(at, rt <= s.tracks[id].key.threshold)
	}
}

// Latency reports whether some latency objective of s counts app's checks.
func (s *Set) Latency(app int) bool { return app < len(s.latency) && len(s.latency[app]) > 0 }
