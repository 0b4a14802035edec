package timeline

import (
	"fmt"
	"time"
)

// State is what an entity was at an instant.
type State uint8

// The states a record holds. Apps and services are Up, Down or Unknown; a
// location's record also knows Partial (some of its apps down, not all), and
// Down there means every app with a known state was down.
const (
	Unknown State = iota // not observed, or observed as unavailable: never counted as down
	Up
	Down
	Partial
)

func (s State) String() string {
	switch s {
	case Unknown:
		return "unknown"
	case Up:
		return "up"
	case Down:
		return "down"
	case Partial:
		return "partial"
	}
	return fmt.Sprintf("State(%d)", uint8(s))
}

// ExactChangesPerDay is how many changes a record keeps exactly in a UTC day
// (a change of state or a maintenance boundary). A day with more keeps
// per-Bucket totals instead: it is flapping.
const ExactChangesPerDay = 100

// Bucket is the resolution a flapping day keeps: every time zone's offset is
// a multiple of it, so days, weeks and months of any zone stay exact.
const Bucket = 15 * time.Minute

// Span is a state over the time range [From, To), as Fill takes it.
type Span struct {
	From, To time.Time
	State    State
}

// The record counts whole seconds between 1970-01-02 and the end of year
// 9999; instants outside are taken as the nearest of the two. inf is the end
// of time.
const (
	minSec    = 86400
	maxSec    = 253402300799
	inf       = maxSec + 1
	daySec    = 86400
	bucketSec = int64(Bucket / time.Second)
	nBuckets  = daySec / bucketSec
)

// sec is t in whole seconds, floored, within the range the record counts.
func sec(t time.Time) int64 {
	u := t.Unix()
	return min(max(u, minSec), maxSec)
}

func clampEnd(s int64) int64 { return min(max(s, minSec), inf) }

func instant(s int64) time.Time { return time.Unix(s, 0).UTC() }

func dayOf(s int64) int64 { return s - s%daySec }

// value is a state and whether the time was in maintenance: what the record
// keeps per second. flap stands for a day kept as buckets.
type value uint8

const (
	maintBit value = 4
	nValues        = 8
	flap     value = 8
)

func mk(s State, maint bool) value {
	if maint {
		return value(s) | maintBit
	}
	return value(s)
}

func (v value) state() State { return State(v & 3) }
func (v value) maint() bool  { return v&maintBit != 0 }

// bad is time that counts toward an outage: down, or (for a location) partial.
func (v value) bad() bool { s := v.state(); return v < flap && (s == Down || s == Partial) }
