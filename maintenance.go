package availmon

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/availmon/availmon/internal/statefile"
)

// MaintenanceWindow is a span of time in which some apps are under planned
// work. They are still checked and their state is shown, with maintenance
// true, but their checks count neither for nor against availability: they
// are left out of availability percentages, uptime_24h, the down counts and
// the status history, and availmon_maintenance{app} is 1 so that alerts can
// be silenced with "unless".
type MaintenanceWindow struct {
	// ID names the window in /api/maintenance/{id}. New names the
	// windows of Options "config-1", "config-2", ... when it is empty;
	// the API names its windows "api-1", "api-2", ...
	ID string
	// Which apps: every one of these that is set must hold, and at least
	// one must be set. Service names one of Options.Services.
	App, Location, Service string
	Labels                 map[string]string
	// A one-off window is [From, To). One with only Duration set (no
	// From, To, Cron or TimeZone) starts when the monitor takes it: it
	// is [now, now+Duration).
	From, To time.Time
	// A recurring window starts at every time the cron expression Cron
	// (five fields, minute first, or a descriptor such as @daily) gives in
	// TimeZone (an IANA name such as Europe/Berlin; default UTC) and lasts
	// Duration of elapsed time.
	Cron     string
	Duration time.Duration
	TimeZone string
	// Comment says why, for the people reading /api/maintenance.
	Comment string
}

// Limits of maintenance windows.
const (
	MaxMaintenanceDuration = 31 * 24 * time.Hour // of a recurring window or one that starts now
	maxAPIWindows          = statefile.MaxWindows
	maxCommentBytes        = 1024
)

// cronParser reads the standard five fields and the descriptors; seconds
// are not accepted, as in crontab and Kubernetes CronJobs.
var cronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// Validate checks the window on its own: its timing and that it names some
// apps. Whether the names exist is checked against the monitor.
func (w *MaintenanceWindow) Validate() error {
	_, _, err := w.compile()
	return err
}

func (w *MaintenanceWindow) compile() (cron.Schedule, *time.Location, error) {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if w.App == "" && w.Location == "" && w.Service == "" && len(w.Labels) == 0 {
		bad("name the apps: set app, location, service or labels")
	}
	for k, v := range w.Labels {
		if err := checkLabel(k, v); err != nil {
			bad("labels: %w", err)
		}
	}
	if len(w.Comment) > maxCommentBytes {
		bad("the comment is longer than %d bytes", maxCommentBytes)
	}
	var sched cron.Schedule
	var loc *time.Location
	oneOff := !w.From.IsZero() || !w.To.IsZero()
	switch {
	case oneOff && (w.Cron != "" || w.Duration != 0 || w.TimeZone != ""):
		bad("set from and to (one-off), duration alone (one-off, starting now) or cron, duration and time_zone (recurring), not a mix of them")
	case oneOff:
		if w.From.IsZero() || w.To.IsZero() || !w.From.Before(w.To) {
			bad("a one-off window needs from before to")
		}
	case w.startsNow():
		if w.Duration < 0 || w.Duration > MaxMaintenanceDuration {
			bad("duration %s is outside (0s, %s]", w.Duration, formatDuration(MaxMaintenanceDuration))
		}
	case w.Cron == "":
		bad("set from and to (one-off), duration alone (one-off, starting now) or cron and duration (recurring)")
	default:
		var err error
		if sched, err = cronParser.Parse(w.Cron); err != nil || strings.Contains(w.Cron, "TZ=") {
			if err == nil {
				err = errors.New("give the zone as time_zone")
			}
			bad("cron %q: %v", w.Cron, err)
		}
		if w.Duration <= 0 || w.Duration > MaxMaintenanceDuration {
			bad("duration %s is outside (0s, %s]", w.Duration, formatDuration(MaxMaintenanceDuration))
		}
		if loc, err = time.LoadLocation(cmp.Or(w.TimeZone, "UTC")); err != nil || w.TimeZone == "Local" {
			bad("time_zone %q is not an IANA zone name such as Europe/Berlin", w.TimeZone)
		}
	}
	return sched, loc, errors.Join(errs...)
}

// startsNow reports whether w is a one-off window of Duration from the
// time the monitor takes it.
func (w *MaintenanceWindow) startsNow() bool {
	return w.Duration != 0 && w.Cron == "" && w.TimeZone == "" && w.From.IsZero() && w.To.IsZero()
}

// maintWindow is a checked window.
type maintWindow struct {
	MaintenanceWindow
	sched      cron.Schedule // nil: one-off
	loc        *time.Location
	fromConfig bool
	// def is a configuration window as Options gave it, before its start
	// was resolved, so that a reload can tell it again.
	def MaintenanceWindow
}

// startAt gives a window that starts now its span from now.
func (w *maintWindow) startAt(now time.Time) {
	if w.sched == nil && w.startsNow() {
		w.From, w.To, w.Duration = now, now.Add(w.Duration), 0
	}
}

// active reports whether t is in the window. A recurring window is active
// when one of its starts s has s <= t < s+Duration, that is when the first
// start after t-Duration is not after t.
func (w *maintWindow) active(t time.Time) bool {
	if w.sched == nil {
		return !t.Before(w.From) && t.Before(w.To)
	}
	s := w.sched.Next(t.Add(-w.Duration).In(w.loc))
	return !s.IsZero() && !s.After(t)
}

// next returns the start and end of the window now in or next after t;
// zero when there is none (a one-off window in the past, a cron
// expression that never fires).
func (w *maintWindow) next(t time.Time) (start, end time.Time) {
	if w.sched == nil {
		if t.Before(w.To) {
			return w.From, w.To
		}
		return time.Time{}, time.Time{}
	}
	s := w.sched.Next(t.Add(-w.Duration).In(w.loc))
	if s.IsZero() {
		return s, s
	}
	return s, s.Add(w.Duration)
}

// matches marks in into the apps of p the window covers.
func (w *maintWindow) mark(p *plan, into []bool) {
	cand := func(yield func(int) bool) {
		switch {
		case w.App != "":
			if i, ok := p.appIndex[w.App]; ok {
				yield(i)
			}
		case w.Service != "":
			if si, ok := p.ctl.serviceIndex[w.Service]; ok {
				for _, apps := range p.ctl.services[si].locApps {
					for _, i := range apps {
						if !yield(i) {
							return
						}
					}
				}
			}
		default:
			for i := range p.apps {
				if !yield(i) {
					return
				}
			}
		}
	}
	for i := range cand {
		a := p.apps[i]
		if w.App != "" && a.Name != w.App || w.Location != "" && a.Location != w.Location ||
			!matches(p.ctl.appLabels[i], w.Labels) {
			continue
		}
		into[i] = true
	}
}

// maintenance holds the windows of Options and those added through the
// API. Commit reads it once a cycle; the API writes it.
type maintenance struct {
	mu      sync.Mutex
	windows []*maintWindow // Options' first, then the API's in order
	nextID  int
	deleted []deletedWindow // what the API deleted since the last cycle (takeDeleted)
}

// deletedWindow is a window the API deleted at at.
type deletedWindow struct {
	w  *maintWindow
	at time.Time
}

func newMaintenance(ws []MaintenanceWindow, now time.Time) (*maintenance, []error) {
	mt := &maintenance{}
	windows, errs := compileConfigWindows(ws)
	mt.setConfig(windows, now)
	return mt, errs
}

// compileConfigWindows checks the windows of Options on their own and
// names those without an ID config-N.
func compileConfigWindows(ws []MaintenanceWindow) ([]*maintWindow, []error) {
	var out []*maintWindow
	var errs []error
	seen := make(map[string]bool)
	for i, w := range ws {
		w.Labels = maps.Clone(w.Labels)
		def := w
		if reservedWindowID(w.ID) {
			errs = append(errs, fmt.Errorf("maintenance window %q: ids config-N and api-N are given by availmon", w.ID))
		}
		if w.ID == "" {
			w.ID = "config-" + strconv.Itoa(i+1)
		}
		sched, loc, err := w.compile()
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("maintenance window %q: %w", w.ID, err))
		case seen[w.ID]:
			errs = append(errs, fmt.Errorf("maintenance window %q is listed twice", w.ID))
		}
		seen[w.ID] = true
		out = append(out, &maintWindow{MaintenanceWindow: w, sched: sched, loc: loc, fromConfig: true, def: def})
	}
	return out, errs
}

// setConfig replaces the configuration's windows with ws and keeps the
// API's after them. A window that starts now keeps the start of the same
// window (as given) it replaces: a reload that leaves it alone must not
// make it last longer. Other such windows start at now.
func (mt *maintenance) setConfig(ws []*maintWindow, now time.Time) {
	mt.mu.Lock()
	defer mt.mu.Unlock()
	var prev, api []*maintWindow
	for _, w := range mt.windows {
		if w.fromConfig {
			prev = append(prev, w)
		} else {
			api = append(api, w)
		}
	}
	for _, w := range ws {
		if !w.startsNow() {
			continue
		}
		if i := slices.IndexFunc(prev, func(o *maintWindow) bool { return reflect.DeepEqual(o.def, w.def) }); i >= 0 {
			w.From, w.To, w.Duration = prev[i].From, prev[i].To, 0
			prev = slices.Delete(prev, i, i+1)
			continue
		}
		w.startAt(now)
	}
	mt.windows = append(slices.Clip(ws), api...)
}

func reservedWindowID(id string) bool {
	return strings.HasPrefix(id, "config-") || strings.HasPrefix(id, "api-")
}

// checkTargets reports the names a window gives that p does not have. With
// discovery, an app name or a label key p lacks may be one a rule finds
// later: the window covers such apps when they come.
func checkTargets(w *MaintenanceWindow, p *plan, discovery bool) error {
	var errs []error
	if w.App != "" && !hasKey(p.appIndex, w.App) && !discovery {
		errs = append(errs, fmt.Errorf("no app is named %q", w.App))
	}
	if w.Location != "" && !hasKey(p.locIndex, w.Location) {
		errs = append(errs, fmt.Errorf("no location is named %q", w.Location))
	}
	if w.Service != "" && !hasKey(p.ctl.serviceIndex, w.Service) {
		errs = append(errs, fmt.Errorf("no service is named %q", w.Service))
	}
	for _, k := range slices.Sorted(maps.Keys(w.Labels)) {
		if !p.ctl.labelKeys[k] && !discovery {
			errs = append(errs, fmt.Errorf("no app has a label %q", k))
		}
	}
	return errors.Join(errs...)
}

// activeApps returns, per app of p, whether a window covers it at t; nil
// when none does.
func (mt *maintenance) activeApps(p *plan, t time.Time) []bool {
	mt.mu.Lock()
	defer mt.mu.Unlock()
	var out []bool
	for _, w := range mt.windows {
		if !w.active(t) {
			continue
		}
		if out == nil {
			out = make([]bool, len(p.apps))
		}
		w.mark(p, out)
	}
	return out
}

var errTooManyWindows = fmt.Errorf("there are already %d maintenance windows from the API; delete some first", maxAPIWindows)

// add checks w against p and adds it with a new ID; a window that starts
// now starts at now.
func (mt *maintenance) add(w MaintenanceWindow, p *plan, now time.Time) (*maintWindow, error) {
	w.ID = ""
	w.Labels = maps.Clone(w.Labels)
	sched, loc, err := w.compile()
	if err == nil {
		err = checkTargets(&w, p, false)
	}
	if err != nil {
		return nil, err
	}
	mt.mu.Lock()
	defer mt.mu.Unlock()
	n := 0
	for _, x := range mt.windows {
		if !x.fromConfig {
			n++
		}
	}
	if n >= maxAPIWindows {
		return nil, errTooManyWindows
	}
	mt.nextID++
	w.ID = "api-" + strconv.Itoa(mt.nextID)
	mw := &maintWindow{MaintenanceWindow: w, sched: sched, loc: loc}
	mw.startAt(now)
	mt.windows = append(mt.windows, mw)
	return mw, nil
}

var (
	errNoWindow     = errors.New("no such maintenance window")
	errConfigWindow = errors.New("the window is part of the configuration; change it there")
)

func (mt *maintenance) remove(id string, now time.Time) (*maintWindow, error) {
	mt.mu.Lock()
	defer mt.mu.Unlock()
	for i, w := range mt.windows {
		if w.ID != id {
			continue
		}
		if w.fromConfig {
			return nil, errConfigWindow
		}
		mt.windows = slices.Delete(mt.windows, i, i+1)
		mt.deleted = append(mt.deleted, deletedWindow{w, now})
		return w, nil
	}
	return nil, errNoWindow
}

func (mt *maintenance) list() []*maintWindow {
	mt.mu.Lock()
	defer mt.mu.Unlock()
	return slices.Clone(mt.windows)
}

// initMaintenance sets up the windows of Options, whose names must exist
// in the first plan (or, with discovery, may come).
func (m *Monitor) initMaintenance(p *plan, ws []MaintenanceWindow, discovery bool) []error {
	windows, errs := configWindows(p, ws, discovery)
	m.maint = &maintenance{}
	m.maint.setConfig(windows, m.clock.Now())
	return errs
}

// configWindows compiles the windows of Options and checks their targets
// against p, when there is one.
func configWindows(p *plan, ws []MaintenanceWindow, discovery bool) ([]*maintWindow, []error) {
	windows, errs := compileConfigWindows(ws)
	if p == nil {
		return windows, errs
	}
	for _, w := range windows {
		if err := checkTargets(&w.MaintenanceWindow, p, discovery); err != nil {
			errs = append(errs, fmt.Errorf("maintenance window %q: %w", w.ID, err))
		}
	}
	return windows, errs
}

// saved copies the API's windows. It holds only the windows' own lock: a
// save never waits for a cycle because of them.
func (mt *maintenance) saved() statefile.Maintenance {
	mt.mu.Lock()
	defer mt.mu.Unlock()
	s := statefile.Maintenance{NextID: mt.nextID}
	for _, w := range mt.windows {
		if !w.fromConfig {
			c := statefile.Window(w.MaintenanceWindow)
			c.Labels = maps.Clone(c.Labels)
			s.Windows = append(s.Windows, c)
		}
	}
	return s
}

// restoreSaved adds saved windows after the configuration's, keeping their
// ids. A window whose app is no longer configured is kept and covers
// nothing, as after a reload; one that no longer compiles (a time zone
// this machine lacks) or whose id is not one the API gives, or is taken,
// is dropped with an error.
func (mt *maintenance) restoreSaved(s statefile.Maintenance) (kept int, errs []error) {
	mt.mu.Lock()
	defer mt.mu.Unlock()
	taken := make(map[string]bool, len(mt.windows))
	for _, w := range mt.windows {
		taken[w.ID] = true
	}
	mt.nextID = max(mt.nextID, s.NextID)
	for _, fw := range s.Windows {
		w := MaintenanceWindow(fw)
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
func (m *Monitor) restoreMaintenance(s statefile.Maintenance) {
	kept, errs := m.maint.restoreSaved(s)
	for _, err := range errs {
		m.log.Warn("a saved maintenance window is not restored", "err", err)
	}
	if kept > 0 {
		m.log.Info("restored the maintenance windows added through the API", "windows", kept)
	}
}
