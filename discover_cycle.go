package availmon

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/availmon/availmon/internal/promanswer"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/model"
)

// defaultEventBuffer holds two events per app, those the rules may make
// included, and two per location and service, so that a cycle where every
// app changes loses no client: an app's status_update and the start or end
// of its outage, and the end of a location's or service's outage and the
// start of the next. The bound keeps a large max_apps from reserving a huge
// ring.
func defaultEventBuffer(p *plan, rules []*ruleState) int {
	n := len(p.apps)
	for _, rs := range rules {
		n += rs.rule.MaxApps
	}
	return min(max(1024, 2*(n+len(p.locations)+len(p.ctl.services))), 1<<16)
}

// ruleAnswer is one rule's query in one cycle.
type ruleAnswer struct {
	vec model.Vector
	rt  time.Duration
	err error
	at  time.Time
}

// queryRule runs a rule's query once, on the backend of plan p.
func (m *Monitor) queryRule(ctx context.Context, p *plan, rs *ruleState) (a ruleAnswer) {
	be := p.backends[rs.backend]
	start := time.Now()
	defer func() {
		if r := recover(); r != nil {
			a.err = fmt.Errorf("source panicked: %v\n%s", r, debug.Stack())
		}
		m.exp.ObserveScrape(be.Name, time.Since(start), a.err)
		if a.err == nil && ctx.Err() != nil {
			a.err = fmt.Errorf("check timed out: answered after the cycle deadline: %w", ctx.Err())
		}
		a.at = m.clock.Now()
	}()
	a.vec, a.rt, a.err = be.Source.(InstantQuerier).Instant(ctx, rs.rule.Query)
	return a
}

// foldRules applies the cycle's answers to the rules, notes which backends
// answered, and sets the rules' metrics. What a rule's answers fail at or
// skip cycle after cycle is logged when it starts and when it ends (with
// the cycles it lasted), not every cycle: the metrics say it meanwhile.
func (m *Monitor) foldRules(p *plan, rules []*ruleState, answers []ruleAnswer, out *cycleResult) {
	for i, rs := range rules {
		a := answers[i]
		st := rs.fold(a.vec, a.rt, a.err, a.at, p.locations)
		out.tried[rs.backend] = true
		name := rs.rule.Name
		rs.noteAnswer(a.err, a.at)
		if a.err != nil {
			m.disc.metrics.failing.WithLabelValues(name).Set(1)
			m.warnStarted(ruleKey(name, "failed"), a.at, "discovery query failed; its apps are unavailable until it answers",
				"rule", name, "backend", rs.rule.Backend, "apps", len(rs.apps), "err", rs.failing)
			continue
		}
		out.answered[rs.backend] = true
		m.disc.metrics.failing.WithLabelValues(name).Set(0)
		m.infoEnded(ruleKey(name, "failed"), a.at, "discovery query answering again", "failed_cycles", "rule", name)
		m.disc.metrics.apps.WithLabelValues(name).Set(float64(len(rs.apps)))
		m.disc.metrics.skipped.WithLabelValues(name, "unmapped_location").Set(float64(st.unmapped))
		m.disc.metrics.skipped.WithLabelValues(name, "name_template").Set(float64(st.badName))
		m.disc.metrics.skipped.WithLabelValues(name, "max_apps").Set(float64(st.overMax))
		m.ruleCondition(rs, "unmapped_location", st.unmapped, a.at,
			"discovery: series whose location label maps to no location are skipped",
			"label", rs.rule.LocationLabel, "series", st.unmapped, "values", st.unmappedValues)
		m.ruleCondition(rs, "name_template", st.badName, a.at,
			"discovery: series the app name template cannot name are skipped", "series", st.badName)
		m.ruleCondition(rs, "max_apps", st.overMax, a.at,
			"discovery: the rule holds max_apps apps; new ones are ignored", "max_apps", rs.rule.MaxApps, "ignored", st.overMax)
		if st.forgotten > 0 {
			m.log.Info("discovery: apps without a sample for forget_after were removed", "rule", name,
				"removed", st.forgotten, "forget_after", rs.rule.ForgetAfter)
		}
	}
}

// ruleCondition logs the condition reason of rule rs when it starts (n > 0
// after a cycle without it) and when it ends (n == 0 after cycles with it).
func (m *Monitor) ruleCondition(rs *ruleState, reason string, n int, now time.Time, msg string, attrs ...any) {
	key := ruleKey(rs.rule.Name, reason)
	if n > 0 {
		m.warnStarted(key, now, msg, append([]any{"rule", rs.rule.Name}, attrs...)...)
		return
	}
	m.infoEnded(key, now, "discovery: no more series skipped", "cycles", "rule", rs.rule.Name, "reason", reason)
}

// ruleKey is the repeatlog key of a condition of a rule.
func ruleKey(rule, what string) string { return "discovery\x00" + rule + "\x00" + what }

// endRuleConditions ends the logged conditions of a rule that is gone,
// quietly: its removal is logged as a reconfiguration.
func (m *Monitor) endRuleConditions(rule string) {
	for _, what := range []string{"failed", "unmapped_location", "name_template", "max_apps"} {
		m.conds.End(ruleKey(rule, what))
	}
}

// applyDiscovery folds the rules' answers in, swaps in a plan with the apps
// they found when that set changed, and fills out with their results. It
// returns the plan the cycle commits. It runs under cycleMu.
func (m *Monitor) applyDiscovery(p *plan, answers []ruleAnswer, out *cycleResult) *plan {
	m.foldRules(p, m.disc.rules, answers, out)
	found := m.discovered(p, m.disc.rules)
	defer m.stopAwaiting(answers)
	if !sameDiscovered(p, found) {
		np := m.withDiscovered(p, found, m.disc.rules)
		m.applyPlan(np, false)
		out.found = make([]Result, len(found))
		p = np
	}
	out.foundAt = make([]time.Time, len(found))
	for i, f := range found {
		out.found[i], out.foundAt[i] = f.result, f.at
	}
	return p
}

// discovered lists the apps the rules hold, rule by rule in name order,
// leaving out names a listed app or an earlier rule has taken (logged the
// first time, and counted as duplicate).
func (m *Monitor) discovered(p *plan, rules []*ruleState) []*foundApp {
	var out []*foundApp
	taken := make(map[string]string)
	for _, rs := range rules {
		dups := 0
		for _, f := range rs.sortedApps() {
			name := f.app.Name
			other, dup := taken[name]
			if i, ok := p.appIndex[name]; ok && i < p.nListed {
				dup, other = true, "a listed app"
			}
			if dup {
				dups++
				if !rs.dupLogged[name] {
					rs.dupLogged[name] = true
					m.log.Warn("discovery: app name already taken; skipped", "rule", rs.rule.Name, "app", name, "taken_by", other)
				}
				continue
			}
			taken[name] = fmt.Sprintf("rule %q", rs.rule.Name)
			out = append(out, f)
		}
		m.disc.metrics.skipped.WithLabelValues(rs.rule.Name, "duplicate").Set(float64(dups))
	}
	return out
}

// sameDiscovered reports whether p already holds exactly the apps found.
func sameDiscovered(p *plan, found []*foundApp) bool {
	if len(p.apps)-p.nListed != len(found) {
		return false
	}
	for i, f := range found {
		a := &p.apps[p.nListed+i]
		if a.Name != f.app.Name || a.Location != f.app.Location || a.Metric != f.app.Metric || a.Backend != f.app.Backend {
			return false
		}
	}
	return true
}

// withDiscovered returns a plan of p's listed apps followed by the apps
// found, with the controls New was given resolved for them all. The found
// apps are never batched: their rules' queries check them.
func (m *Monitor) withDiscovered(p *plan, found []*foundApp, rules []*ruleState) *plan {
	n := len(p.apps[:p.nListed]) + len(found)
	np := &plan{
		apps:      make([]App, 0, n),
		appIndex:  make(map[string]int, n),
		locations: p.locations,
		locIndex:  p.locIndex,
		appLocs:   make([]int, 0, n),
		locApps:   make([][]int, len(p.locations)),
		backends:  p.backends,
		backendOf: make([]int, 0, n),
		batches:   p.batches,
		appBatch:  p.appBatch,
		batchRuns: p.batchRuns,
		nListed:   p.nListed,
	}
	add := func(a App, loc, backend int) {
		i := len(np.apps)
		np.apps = append(np.apps, a)
		np.appIndex[a.Name] = i
		np.appLocs = append(np.appLocs, loc)
		np.locApps[loc] = append(np.locApps[loc], i)
		np.backendOf = append(np.backendOf, backend)
	}
	for i, a := range p.apps[:p.nListed] {
		add(a, p.appLocs[i], p.backendOf[i])
	}
	backendOfRule := make(map[string]int, len(rules))
	for _, rs := range rules {
		backendOfRule[rs.rule.Backend] = rs.backend
	}
	for _, f := range found {
		add(f.app, f.loc, backendOfRule[f.app.Backend])
	}
	var o Options
	m.ctlOpts.into(&o) // under cycleMu, which guards the thresholds
	ctl, errs := newControls(np, &o)
	for _, err := range errs {
		// The labels of series are label names and non-empty values, and
		// the rest was checked with the listed apps: this is not expected.
		m.log.Warn("discovery: controls of discovered apps", "err", err)
	}
	np.ctl = ctl
	return np
}

// discoveryMetrics describe the rules: whether each one's query fails, how
// many apps it holds, and how many series its last answer skipped, and why.
type discoveryMetrics struct {
	failing *prometheus.GaugeVec
	apps    *prometheus.GaugeVec
	skipped *prometheus.GaugeVec
}

func newDiscoveryMetrics() discoveryMetrics {
	return discoveryMetrics{
		failing: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "availmon_discovery_failing",
			Help: "Whether a discovery rule's last query failed: 1 yes (its apps are unavailable), 0 no.",
		}, []string{"rule"}),
		apps: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "availmon_discovery_apps",
			Help: "Apps a discovery rule holds after its last query, those without a sample included.",
		}, []string{"rule"}),
		skipped: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "availmon_discovery_series_skipped",
			Help: "Series or apps of a discovery rule's last query that were skipped, by reason (unmapped_location, name_template, max_apps, duplicate).",
		}, []string{"rule", "reason"}),
	}
}

func (d discoveryMetrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{d.failing, d.apps, d.skipped}
}

// forget deletes the series of rules that are gone.
func (d discoveryMetrics) forget(rule string) {
	d.failing.DeletePartialMatch(prometheus.Labels{"rule": rule})
	d.apps.DeletePartialMatch(prometheus.Labels{"rule": rule})
	d.skipped.DeletePartialMatch(prometheus.Labels{"rule": rule})
}

// ruleStats counts what one answer of a rule left out.
type ruleStats struct {
	badName, unmapped, overMax int
	unmappedValues             []string // a few of them, for the log
	forgotten                  int
}

// series of one app in an answer.
type appSeries struct {
	samples  model.Vector
	loc      int
	locValue string
	metric   model.Metric
}

// fold applies one answer of the rule's query, received at now, to the
// apps the rule holds: err (the query failed) makes every one unavailable
// and forgets none; otherwise the series make and update apps, apps without
// a series are unavailable ("no sample") and those without one for
// ForgetAfter are dropped.
func (rs *ruleState) fold(vec model.Vector, rt time.Duration, err error, now time.Time, locations []Location) ruleStats {
	var st ruleStats
	if err != nil {
		for _, f := range rs.apps {
			f.result, f.at = Result{Status: StatusUnavailable, Err: err}, now
		}
		return st
	}
	groups := rs.group(vec, &st)
	for name, f := range rs.apps {
		if _, ok := groups[name]; ok {
			continue
		}
		if now.Sub(f.lastSeen) >= rs.rule.ForgetAfter {
			delete(rs.apps, name)
			st.forgotten++
			continue
		}
		f.result, f.at = Result{Status: StatusUnavailable, Err: promanswer.ErrNoSample}, now
	}
	// Apps the rule holds keep their place; new names come in name order
	// while there is room.
	for _, name := range slices.Sorted(maps.Keys(groups)) {
		g := groups[name]
		f, known := rs.apps[name]
		if !known {
			if len(rs.apps) >= rs.rule.MaxApps {
				st.overMax++
				continue
			}
			f = &foundApp{}
			rs.apps[name] = f
		}
		f.app = App{Name: name, Location: locations[g.loc].Name, Metric: g.metric.String(), Backend: rs.rule.Backend,
			Labels: seriesLabels(g.metric)}
		f.loc, f.locValue, f.lastSeen = g.loc, g.locValue, now
		f.result, f.at = ruledResult(g.samples, rt), now
	}
	return st
}

// ruledResult applies the rules of App.Metric to the samples of one
// discovered app: no sample is unavailable; up only if every sample is
// non-zero and not NaN; a zero makes it down.
func ruledResult(samples model.Vector, roundTrip time.Duration) Result {
	var s promanswer.Summary
	s.AddVector(samples)
	r := Result{ResponseTime: roundTrip}
	switch s.Verdict() {
	case promanswer.NoSample:
		r.Status, r.Err = StatusUnavailable, promanswer.ErrNoSample
	case promanswer.Down:
		r.Status = StatusDown
	case promanswer.NaN:
		r.Status, r.Err = StatusUnavailable, promanswer.ErrNaNSample
	default:
		r.Status = StatusUp
	}
	return r
}

// group sorts an answer's series by the app name they make.
func (rs *ruleState) group(vec model.Vector, st *ruleStats) map[string]*appSeries {
	groups := make(map[string]*appSeries)
	labels := make(map[string]string)
	var b strings.Builder
	for _, s := range vec {
		clear(labels)
		for k, v := range s.Metric {
			labels[string(k)] = string(v)
		}
		b.Reset()
		if err := rs.name.Execute(&b, labels); err != nil || b.Len() == 0 {
			st.badName++
			continue
		}
		lv := string(s.Metric[model.LabelName(rs.rule.LocationLabel)])
		li, ok := rs.locOf[lv]
		if !ok {
			st.unmapped++
			if len(st.unmappedValues) < 5 && !slices.Contains(st.unmappedValues, lv) {
				st.unmappedValues = append(st.unmappedValues, lv)
			}
			continue
		}
		name := b.String()
		g := groups[name]
		if g == nil {
			g = &appSeries{loc: li, locValue: lv, metric: s.Metric}
			groups[name] = g
		}
		g.samples = append(g.samples, s)
	}
	return groups
}

// seriesLabels are a series' labels but its name: a discovered app's labels,
// for the filters of /api/apps and export_labels.
func seriesLabels(m model.Metric) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		if k != model.MetricNameLabel && v != "" {
			out[string(k)] = string(v)
		}
	}
	return out
}

// sortedApps lists the rule's apps by name.
func (rs *ruleState) sortedApps() []*foundApp {
	out := slices.Collect(maps.Values(rs.apps))
	slices.SortFunc(out, func(a, b *foundApp) int { return cmp.Compare(a.app.Name, b.app.Name) })
	return out
}
