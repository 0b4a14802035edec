package availmon

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// savedMaintenance is what a Store keeps of the maintenance windows: those
// the API added (the configuration's come from Options at every start)
// and the number of the last id given, so that an id deleted before a
// restart is not given again after it.
type savedMaintenance struct {
	nextID  int
	windows []MaintenanceWindow
}

// saved copies the API's windows. It holds only the windows' own lock: a
// save never waits for a cycle because of them.
func (mt *maintenance) saved() savedMaintenance {
	mt.mu.Lock()
	defer mt.mu.Unlock()
	s := savedMaintenance{nextID: mt.nextID}
	for _, w := range mt.windows {
		if !w.fromConfig {
			c := w.MaintenanceWindow
			c.Labels = maps.Clone(c.Labels)
			s.windows = append(s.windows, c)
		}
	}
	return s
}

// restoreSaved adds saved windows after the configuration's, keeping their
// ids. A window whose app is no longer configured is kept and covers
// nothing, as after a reload; one that no longer compiles (a time zone
// this machine lacks) or whose id is not one the API gives, or is taken,
// is dropped with an error.
func (mt *maintenance) restoreSaved(s savedMaintenance) (kept int, errs []error) {
	mt.mu.Lock()
	defer mt.mu.Unlock()
	taken := make(map[string]bool, len(mt.windows))
	for _, w := range mt.windows {
		taken[w.ID] = true
	}
	mt.nextID = max(mt.nextID, s.nextID)
	for _, w := range s.windows {
		n, ok := apiWindowNumber(w.ID)
		if !ok || taken[w.ID] {
			errs = append(errs, fmt.Errorf("maintenance window %q: not an id the API gives, or given twice", w.ID))
			continue
		}
		sched, loc, err := w.compile()
		if err != nil {
			errs = append(errs, fmt.Errorf("maintenance window %q: %w", w.ID, err))
			continue
		}
		w.Labels = maps.Clone(w.Labels)
		mt.windows = append(mt.windows, &maintWindow{MaintenanceWindow: w, sched: sched, loc: loc})
		taken[w.ID] = true
		mt.nextID = max(mt.nextID, n)
		kept++
	}
	return kept, errs
}

func apiWindowNumber(id string) (int, bool) {
	s, ok := strings.CutPrefix(id, "api-")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil && n > 0 && strconv.Itoa(n) == s
}

// restoreMaintenance puts the saved windows back and logs what it did.
func (m *Monitor) restoreMaintenance(s savedMaintenance) {
	kept, errs := m.maint.restoreSaved(s)
	for _, err := range errs {
		m.log.Warn("a saved maintenance window is not restored", "err", err)
	}
	if kept > 0 {
		m.log.Info("restored the maintenance windows added through the API", "windows", kept)
	}
}

func (e *encoder) maintenance(s *savedMaintenance) {
	e.uvarint(uint64(s.nextID))
	e.uvarint(uint64(len(s.windows)))
	for i := range s.windows {
		w := &s.windows[i]
		e.str(w.ID)
		e.str(w.App)
		e.str(w.Location)
		e.str(w.Service)
		e.uvarint(uint64(len(w.Labels)))
		for _, k := range slices.Sorted(maps.Keys(w.Labels)) {
			e.str(k)
			e.str(w.Labels[k])
		}
		e.time(w.From)
		e.time(w.To)
		e.str(w.Cron)
		e.varint(int64(w.Duration))
		e.str(w.TimeZone)
		e.str(w.Comment)
	}
}

// time writes t as a flag (0: the zero time) and its Unix nanoseconds.
func (e *encoder) time(t time.Time) {
	if t.IsZero() {
		e.b = append(e.b, 0)
		return
	}
	e.b = append(e.b, 1)
	e.varint(t.UnixNano())
}

// A window takes at least 11 bytes: six empty strings, no labels, two
// zero times and a zero duration.
const minWindowBytes = 11

func (d *decoder) maintenance(s *savedMaintenance) {
	next := d.uvarint()
	if next > math.MaxInt32 {
		d.fail("maintenance window id %d out of range", next)
		return
	}
	s.nextID = int(next)
	n := d.count(minWindowBytes)
	if n > maxAPIWindows {
		d.fail("%d maintenance windows, at most %d come from the API", n, maxAPIWindows)
		return
	}
	s.windows = make([]MaintenanceWindow, n)
	for i := range s.windows {
		w := &s.windows[i]
		w.ID, w.App, w.Location, w.Service = d.str(), d.str(), d.str(), d.str()
		if nl := d.count(2); nl > 0 {
			w.Labels = make(map[string]string, nl)
			for range nl {
				k := d.str()
				w.Labels[k] = d.str()
			}
		}
		w.From, w.To = d.time(), d.time()
		w.Cron, w.Duration, w.TimeZone, w.Comment = d.str(), d.duration(), d.str(), d.str()
		if d.err != nil {
			return
		}
	}
}

func (d *decoder) time() time.Time {
	switch flag := d.bytes(1)[0]; flag {
	case 0:
		return time.Time{}
	case 1:
		return time.Unix(0, d.varint()).UTC()
	default:
		d.fail("time flag %d", flag)
		return time.Time{}
	}
}
