package availmon_test

import (
	"math"
	"time"

	"github.com/availmon/availmon"
)

// The plain model of the record for TestLedgerProperty: every entity's
// state and maintenance second by second.
const (
	sUnknown = iota
	sUp
	sPartial
	sDown
)

type modelSeries struct {
	base  int64 // the Unix second of index 0
	state []uint8
	maint []bool
}

func (s *modelSeries) at(sec int64) (uint8, bool) {
	i := sec - s.base
	if i < 0 || i >= int64(len(s.state)) {
		return sUnknown, false
	}
	return s.state[i], s.maint[i]
}

type propModel struct {
	series map[string]*modelSeries
	apps   map[string][]string // location -> apps
}

// model builds the entities' seconds from the cycles and the windows.
func (p *propRun) model() *propModel {
	base := propStart.Add(-7 * time.Hour).Unix()
	n := p.cycles[len(p.cycles)-1].Unix() + 3*60 - base
	m := &propModel{series: map[string]*modelSeries{}, apps: map[string][]string{}}
	newSeries := func(name string) *modelSeries {
		s := &modelSeries{base: base, state: make([]uint8, n), maint: make([]bool, n)}
		m.series[name] = s
		return s
	}
	groups := map[string][]int{"L1": {0, 1}, "L2": {2}, "svc": {0, 1, 2}}
	for ai, a := range propApps {
		m.apps[a.loc] = append(m.apps[a.loc], a.name)
		s := newSeries(a.name)
		p.hold(s, func(k int) uint8 { return appState(p.results[k][ai]) })
		p.mark(s, []int{ai})
	}
	for _, loc := range []string{"L1", "L2"} {
		s := newSeries(loc)
		p.hold(s, func(k int) uint8 { return p.locationState(k, groups[loc]) })
		p.mark(s, groups[loc])
	}
	s := newSeries("svc")
	p.hold(s, p.serviceState)
	p.mark(s, groups["svc"])
	return m
}

func appState(st availmon.Status) uint8 {
	switch st {
	case availmon.StatusUp:
		return sUp
	case availmon.StatusDown:
		return sDown
	}
	return sUnknown
}

// hold writes each cycle's state from its time until the next cycle, at
// most twice the interval.
func (p *propRun) hold(s *modelSeries, state func(k int) uint8) {
	for k, c := range p.cycles {
		end := c.Add(2 * propInterval)
		if k+1 < len(p.cycles) && p.cycles[k+1].Before(end) {
			end = p.cycles[k+1]
		}
		for sec := c.Unix(); sec < end.Unix(); sec++ {
			s.state[sec-s.base] = state(k)
		}
	}
}

// mark sets the seconds in maintenance: those of a window that covers all
// of apps, from its start to its end or its deletion.
func (p *propRun) mark(s *modelSeries, apps []int) {
	for _, w := range p.windows {
		if !covers(w.apps, apps) {
			continue
		}
		end := w.to
		if !w.deleted.IsZero() && w.deleted.Before(end) {
			end = w.deleted
		}
		for sec := max(w.from.Unix(), s.base); sec < end.Unix() && sec-s.base < int64(len(s.maint)); sec++ {
			s.maint[sec-s.base] = true
		}
	}
}

func covers(have, want []int) bool {
	for _, a := range want {
		found := false
		for _, b := range have {
			found = found || a == b
		}
		if !found {
			return false
		}
	}
	return true
}

// inMaint says whether app ai was in a window when cycle k checked it:
// one posted before then.
func (p *propRun) inMaint(k, ai int) bool {
	c := p.cycles[k]
	for _, w := range p.windows {
		if covers(w.apps, []int{ai}) && w.posted.Before(c) && !c.Before(w.from) && c.Before(w.to) && (w.deleted.IsZero() || c.Before(w.deleted)) {
			return true
		}
	}
	return false
}

// locationState is the tally of the location's apps outside maintenance
// at cycle k.
func (p *propRun) locationState(k int, apps []int) uint8 {
	up, down := 0, 0
	for _, ai := range apps {
		if p.inMaint(k, ai) {
			continue
		}
		switch p.results[k][ai] {
		case availmon.StatusUp:
			up++
		case availmon.StatusDown:
			down++
		}
	}
	switch {
	case down == 0 && up > 0:
		return sUp
	case down > 0 && up == 0:
		return sDown
	case down > 0:
		return sPartial
	}
	return sUnknown
}

// serviceState is svc's quorum (one location of two) at cycle k: a
// location is up when all its apps are (those in maintenance count as
// up), down when one is down, unknown otherwise.
func (p *propRun) serviceState(k int) uint8 {
	locsUp, unknown := 0, 0
	for _, apps := range [][]int{{0, 1}, {2}} {
		st := availmon.StatusUp
		for _, ai := range apps {
			s := p.results[k][ai]
			if p.inMaint(k, ai) {
				s = availmon.StatusUp
			}
			switch {
			case s == availmon.StatusDown:
				st = availmon.StatusDown
			case s == availmon.StatusUnavailable && st == availmon.StatusUp:
				st = availmon.StatusUnavailable
			}
		}
		switch st {
		case availmon.StatusUp:
			locsUp++
		case availmon.StatusUnavailable:
			unknown++
		}
	}
	switch {
	case locsUp >= 1:
		return sUp
	case unknown >= 1:
		return sUnknown
	}
	return sDown
}

type modelTotals struct{ up, down, unknown, maint, bad int64 }

// totals counts [from, to): each state outside maintenance, maintenance
// whatever the state, and bad time (down or partial) outside maintenance.
func (s *modelSeries) totals(from, to int64) modelTotals {
	var t modelTotals
	for sec := from; sec < to; sec++ {
		st, maint := s.at(sec)
		switch {
		case maint:
			t.maint++
		case st == sUp:
			t.up++
		case st == sDown:
			t.down++
			t.bad++
		case st == sPartial:
			t.bad++
		default:
			t.unknown++
		}
	}
	return t
}

// outages are the maximal runs of bad seconds that overlap [from, to),
// read whole from their start and cut at to.
func (s *modelSeries) outages(from, to int64) []WireOutage {
	var out []WireOutage
	bad := func(sec int64) bool { st, _ := s.at(sec); return st == sDown || st == sPartial }
	for sec := s.base; sec < to; sec++ {
		if !bad(sec) {
			continue
		}
		start, maint := sec, false
		for ; sec < to && bad(sec); sec++ {
			_, m := s.at(sec)
			maint = maint || m
		}
		if sec <= from {
			continue
		}
		o := WireOutage{Start: time.Unix(start, 0).UTC(), Duration: sec - start, Maintenance: maint}
		if sec == to && bad(to) {
			o.Ongoing = true
		} else {
			end := time.Unix(sec, 0).UTC()
			o.End = &end
		}
		out = append(out, o)
	}
	return out
}

// figures is what /api/availability answers over [from, to) by app,
// location or service, by name.
func (m *propModel) figures(by string, from, to int64) map[string]WireFigures {
	out := map[string]WireFigures{}
	var names []string
	switch by {
	case "app":
		names = []string{"a", "b", "c"}
	case "location":
		names = []string{"L1", "L2"}
	default:
		names = []string{"svc"}
	}
	for _, name := range names {
		own := m.series[name]
		t := own.totals(from, to)
		f := WireFigures{Name: name, Downtime: t.bad, Outages: len(own.outages(from, to))}
		if by == "location" { // its time is the sum of its apps'
			var sum modelTotals
			for _, a := range m.apps[name] {
				at := m.series[a].totals(from, to)
				sum.up, sum.down, sum.unknown, sum.maint = sum.up+at.up, sum.down+at.down, sum.unknown+at.unknown, sum.maint+at.maint
			}
			t.up, t.down, t.unknown, t.maint = sum.up, sum.down, sum.unknown, sum.maint
		} else {
			f.Downtime = t.down
		}
		f.Up, f.Down, f.Unknown, f.Maintenance = t.up, t.down, t.unknown, t.maint
		whole := (to - from) * int64(max(1, len(m.apps[name])))
		f.Availability = percent(t.up, t.up+t.down)
		f.Coverage = percent(t.up+t.down, whole-t.maint)
		out[name] = f
	}
	return out
}

func percent(part, whole int64) *float64 {
	if whole == 0 {
		return nil
	}
	v := math.Round(1e6*float64(part)/float64(whole)) / 1e4
	return &v
}
