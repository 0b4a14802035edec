package availmon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"slices"

	"github.com/availmon/availmon/internal/errlist"
	"github.com/availmon/availmon/internal/history"
	"github.com/availmon/availmon/internal/objectives"
)

// ConfigChange says how a reconfiguration changed the monitor's set of apps,
// locations and backends. Names are sorted. It is the payload of a
// config_update Event that is not about the interval.
type ConfigChange struct {
	AppsAdded, AppsRemoved, AppsChanged []string
	LocationsAdded, LocationsRemoved    []string
	LocationsChanged                    []string
	BackendsAdded, BackendsRemoved      []string
	BackendsChanged                     []string
	// Apps is how many apps the monitor watches after the change.
	Apps int
	// RestartNeeded, set by a ReloadFunc, lists settings that changed but
	// take effect only after a restart. Reconfigure leaves it empty.
	RestartNeeded []string
}

// Empty reports whether nothing was added, removed or changed.
func (c *ConfigChange) Empty() bool {
	return len(c.AppsAdded)+len(c.AppsRemoved)+len(c.AppsChanged)+
		len(c.LocationsAdded)+len(c.LocationsRemoved)+len(c.LocationsChanged)+
		len(c.BackendsAdded)+len(c.BackendsRemoved)+len(c.BackendsChanged) == 0
}

// Reconfigure replaces the apps, locations, backends and discovery rules
// the monitor watches with those of opts, and its flap damping thresholds
// and maintenance windows: it reads opts.Apps, Locations, Backends, Source,
// Discover, FailThreshold, SuccessThreshold and Maintenance, and ignores
// every other field, which New fixed for the monitor's lifetime. The new set
// is validated as New validates it; when it is invalid, nothing changes and
// every problem is in the error.
//
// The change is applied between two cycles (Reconfigure waits for the cycle
// in progress) and published at once, so a reader sees the old set or the
// new one, never a mix. An app that stays (same name) keeps its state,
// history and counters even when its location, metric or backend changed; a
// removed app disappears from the API, from /metrics and from the summaries;
// an added app is unavailable until its first check, in the next cycle. A
// config_update event says what changed, unless nothing did.
//
// The windows of opts replace those of the last New or Reconfigure; the
// windows added through the API stay. A window whose app or label key no
// app has is an error, unless there are discovery rules, which may find
// such apps later. A window of Duration alone starts now, or keeps the
// start it had when the last configuration had the same window. Thresholds
// and windows apply from the next cycle.
func (m *Monitor) Reconfigure(opts Options) (ConfigChange, error) {
	m.ctlOpts.fixedInto(&opts) // fixed by New
	p, rules, errs := buildPlanAndRules(&opts)
	windows, werrs := configWindows(p, opts.Maintenance, len(opts.Discover) > 0)
	errs = append(errs, werrs...)
	var objSet *objectives.Set
	if p != nil {
		var oerrs []error
		objSet, oerrs = m.checkObjectives(p, opts.Objectives, m.objs.tz, len(opts.Discover) > 0)
		errs = append(errs, oerrs...)
	}
	if len(errs) > 0 {
		return ConfigChange{}, fmt.Errorf("availmon: invalid options: %w", errors.Join(errs...))
	}
	m.cycleMu.Lock()
	defer m.cycleMu.Unlock()
	m.ctlOpts.failThreshold, m.ctlOpts.successThreshold = opts.FailThreshold, opts.SuccessThreshold
	m.setObjectives(p, objSet, opts.Objectives, m.objs.tz)
	m.maint.setConfig(windows, m.clock.Now())
	carryRules(m.disc.rules, rules, p)
	kept := make(map[string]bool, len(rules))
	for _, rs := range rules {
		kept[rs.rule.Name] = true
	}
	for _, rs := range m.disc.rules {
		if !kept[rs.rule.Name] {
			m.disc.metrics.forget(rs.rule.Name)
			m.endRuleConditions(rs.rule.Name)
		}
	}
	m.disc.rules = rules
	if len(rules) > 0 {
		p = m.withDiscovered(p, m.discovered(p, rules), rules)
	}
	return m.applyPlan(p, true), nil
}

// buildPlanAndRules validates and builds the plan and the discovery rules
// of opts.
func buildPlanAndRules(opts *Options) (*plan, []*ruleState, []error) {
	p, errs := buildPlan(opts)
	if p == nil {
		return nil, nil, errs
	}
	rules, errs := compileRules(opts.Discover, p)
	return p, rules, errs
}

// applyPlan swaps in plan p, carrying state over by name, and with publish
// publishes it; a cycle leaves that to its commit. It runs under cycleMu.
func (m *Monitor) applyPlan(p *plan, publish bool) ConfigChange {
	old := m.plan
	ch := diffPlans(old, p)
	m.state = carryState(m.state, old, p)
	m.plan = p
	m.events.useNames(p.apps, p.appIndex)
	m.ledger.SetLayout(m.clock.Now(), layoutOf(p), m.ledgerWindows(p))
	m.pastChanged()
	m.resumeDiscovered(p, ch.AppsAdded)
	for _, b := range ch.BackendsRemoved {
		m.exp.ForgetTarget(b)
	}
	for _, b := range ch.BackendsAdded {
		m.exp.InitTarget(b)
	}
	now := m.clock.Now()
	var evs []Event
	if !ch.Empty() {
		evs = append(evs, Event{Type: EventConfigUpdate, Time: now, Change: &ch})
		m.log.Info("configuration changed", "apps", ch.Apps,
			"apps_added", len(ch.AppsAdded), "apps_removed", len(ch.AppsRemoved), "apps_changed", len(ch.AppsChanged),
			"locations_added", ch.LocationsAdded, "locations_removed", ch.LocationsRemoved,
			"backends_added", ch.BackendsAdded, "backends_removed", ch.BackendsRemoved)
	}
	seq := m.events.add(evs...)
	if publish {
		m.publish(now, seq)
		m.events.show()
	}
	// Without publish, the cycle's commit publishes the snapshot that
	// reflects them, and shows them with its own.
	return ch
}

// diffPlans compares two plans by name.
func diffPlans(old, p *plan) ConfigChange {
	ch := ConfigChange{Apps: len(p.apps)}
	ch.AppsAdded, ch.AppsRemoved, ch.AppsChanged = diffNamed(old.apps, p.apps,
		func(a App) string { return a.Name }, old.appIndex, p.appIndex, deepEqual[App])
	ch.LocationsAdded, ch.LocationsRemoved, ch.LocationsChanged = diffNamed(old.locations, p.locations,
		func(l Location) string { return l.Name }, old.locIndex, p.locIndex, deepEqual[Location])
	ch.BackendsAdded, ch.BackendsRemoved, ch.BackendsChanged = diffNamed(old.backends, p.backends,
		func(b Backend) string { return b.Name }, backendNames(old), backendNames(p), sameBackend)
	return ch
}

func deepEqual[T any](a, b T) bool { return reflect.DeepEqual(a, b) }

// sameBackend compares what a backend shows, not its Source: a reloaded
// configuration builds new sources for unchanged backends.
func sameBackend(a, b Backend) bool {
	return a.URL == b.URL && a.BatchSize == b.BatchSize
}

func backendNames(p *plan) map[string]int {
	idx := make(map[string]int, len(p.backends))
	for i, b := range p.backends {
		idx[b.Name] = i
	}
	return idx
}

// diffNamed lists the names only in next (added), only in prev (removed),
// and in both with a different value (changed), each sorted.
func diffNamed[T any](prev, next []T, name func(T) string, prevIdx, nextIdx map[string]int, equal func(a, b T) bool) (added, removed, changed []string) {
	for _, v := range next {
		n := name(v)
		j, ok := prevIdx[n]
		switch {
		case !ok:
			added = append(added, n)
		case !equal(prev[j], v):
			changed = append(changed, n)
		}
	}
	for _, v := range prev {
		if !hasKey(nextIdx, name(v)) {
			removed = append(removed, name(v))
		}
	}
	slices.Sort(added)
	slices.Sort(removed)
	slices.Sort(changed)
	return added, removed, changed
}

// carryState builds the state of plan p from the state of plan old: apps,
// locations and backends that keep their name keep what was learnt about
// them. The 24-hour counters of a location and of the system lose the checks
// of removed apps, and a moved app's checks move with it, so that summaries
// only ever count the apps they list.
func carryState(st *cycleState, old, p *plan) *cycleState {
	ns := &cycleState{
		apps:         make([]appState, len(p.apps)),
		errs:         make([]string, len(p.apps)),
		errsOwn:      true,
		history:      make([]*history.Checks, len(p.apps)),
		rts:          st.rts,
		appDay:       history.MakeAppDays(len(p.apps)),
		locDay:       make([]history.Day, len(p.locations)),
		sysDay:       st.sysDay,
		backends:     make([]bool, len(p.backends)),
		backendSeen:  make([]bool, len(p.backends)),
		cycles:       st.cycles,
		lastCycle:    st.lastCycle,
		lastDuration: st.lastDuration,
	}
	for li, l := range p.locations {
		if j, ok := old.locIndex[l.Name]; ok {
			ns.locDay[li] = st.locDay[j]
		}
	}
	for i, a := range p.apps {
		j, ok := old.appIndex[a.Name]
		if !ok {
			ns.apps[i] = unchecked()
			ns.history[i] = new(history.Checks)
			continue
		}
		day := st.appDay.At(j)
		ns.apps[i], ns.errs[i], ns.history[i] = st.apps[j], st.errs[j], st.history[j]
		ns.appDay.Put(i, &day)
		if old.apps[j].Location != a.Location {
			if lj, ok := p.locIndex[old.apps[j].Location]; ok {
				ns.locDay[lj].Remove(day.Window())
			}
			ns.locDay[p.appLocs[i]].Merge(day.Window())
		}
	}
	for j, a := range old.apps {
		if hasKey(p.appIndex, a.Name) {
			continue
		}
		day := st.appDay.At(j)
		ns.sysDay.Remove(day.Window())
		st.history[j].Unshare(st.rts)
		if li, ok := p.locIndex[a.Location]; ok {
			ns.locDay[li].Remove(day.Window())
		}
	}
	for bi, b := range p.backends {
		if j, ok := old.backendIndex(b.Name); ok {
			ns.backends[bi], ns.backendSeen[bi] = st.backends[j], st.backendSeen[j]
		}
	}
	return ns
}

// ReloadFunc reloads a monitor's configuration from wherever it came from
// (the binary: its file) and applies it, typically with Reconfigure. Its
// error says why nothing changed; an error that joins several (errors.Join)
// is reported one detail per problem.
type ReloadFunc func(ctx context.Context) (ConfigChange, error)

// reloadJSON is the answer to POST /-/reload: what changed.
type reloadJSON struct {
	wsChangeData
	// RestartNeeded lists settings that changed in the configuration but
	// take effect only after a restart.
	RestartNeeded []string `json:"restart_needed"`
}

// postReload serves POST /-/reload, the Prometheus convention for "read your
// configuration again". It takes no body.
func (m *Monitor) postReload(w http.ResponseWriter, r *http.Request) {
	n, err := io.Copy(io.Discard, http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	switch {
	case err != nil:
		m.writeError(w, r, err)
		return
	case n > 0:
		m.writeError(w, r, validationError("POST /-/reload takes no body"))
		return
	}
	ch, err := m.api.reload(r.Context())
	if err != nil {
		m.writeError(w, r, validationError("the configuration was not reloaded; nothing changed", problems(err)...))
		return
	}
	out := reloadJSON{wsChangeData: changeData(&ch), RestartNeeded: ch.RestartNeeded}
	if out.RestartNeeded == nil {
		out.RestartNeeded = []string{}
	}
	writeJSON(w, http.StatusOK, envelope{Data: out, Meta: metaJSON{Timestamp: m.now()}})
}

// problems are the texts of the problems err joins, a detail each.
func problems(err error) []string {
	var out []string
	for _, e := range errlist.Split(err) {
		out = append(out, e.Error())
	}
	return out
}
