package availmon

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"text/template"
	"text/template/parse"
	"time"

	"github.com/availmon/availmon/internal/history"
	"github.com/availmon/availmon/internal/jsontime"
	"github.com/prometheus/common/model"
)

// DiscoveryRule makes apps of the series a PromQL query returns, so that
// apps already labelled in Prometheus need not be listed one by one. Each
// cycle runs the query once, whatever the number of apps it yields: each
// distinct name the AppName template makes from a series' labels is an app,
// whose state comes from its series' values by the rules of App.Metric (all
// non-zero: up; a zero: down; NaN: unavailable).
type DiscoveryRule struct {
	// Name identifies the rule in logs, metrics and errors.
	Name string
	// Backend names one of Options.Backends; its Source must be an
	// InstantQuerier, such as a promsource.Source.
	Backend string
	// Query is the PromQL expression whose series become apps.
	Query string
	// AppName is a text/template over the series' labels, such as
	// `{{ .service }}-{{ .region }}`. A series lacking a label the
	// template uses is skipped and counted.
	AppName string
	// LocationLabel is the label whose value picks the app's location:
	// the location whose Match lists the value, or else whose Name is
	// the value. A series whose value maps to no location is skipped,
	// counted and logged.
	LocationLabel string
	// ForgetAfter is how long an app whose series disappeared stays,
	// unavailable with "no sample", before it is removed; default 1h.
	ForgetAfter time.Duration
	// MaxApps bounds the apps of the rule; default 10,000. Past it, new
	// names are ignored with a warning.
	MaxApps int
}

// Defaults of DiscoveryRule.
const (
	DefaultForgetAfter = time.Hour
	DefaultMaxApps     = 10_000
)

// ruleState is a rule as the monitor runs it: compiled, with the apps it has
// seen. It is only used under cycleMu.
type ruleState struct {
	rule    DiscoveryRule
	backend int // index in the plan's backends
	name    *template.Template
	locOf   map[string]int // LocationLabel value -> location index
	apps    map[string]*foundApp
	// dupLogged holds names already logged as taken, so that a duplicate
	// is logged once, not every cycle.
	dupLogged map[string]bool
	// failing is why the rule's last query failed (nil: it answered), and
	// failingSince when the failures began: /api/status reports them.
	failing      error
	failingSince time.Time
}

// noteAnswer records whether the rule's query of a cycle at now failed.
func (rs *ruleState) noteAnswer(err error, now time.Time) {
	if err == nil {
		rs.failing = nil
		return
	}
	if rs.failing == nil {
		rs.failingSince = now
	}
	rs.failing = boundError(err)
}

// foundApp is an app a rule made, and what its last answer said of it.
type foundApp struct {
	app      App
	loc      int    // index of app.Location in the plan's locations
	locValue string // the LocationLabel value it was found with
	lastSeen time.Time
	result   Result
	at       time.Time
}

// compileRules validates the rules against plan p (its backends, locations
// and listed apps) and compiles them. Every problem is returned.
func compileRules(rules []DiscoveryRule, p *plan) ([]*ruleState, []error) {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	locOf, locErrs := matchIndex(p)
	errs = append(errs, locErrs...)
	seen := map[string]bool{}
	constNames := map[string]string{} // a name no label can change -> rule
	var out []*ruleState
	for i, r := range rules {
		r.ForgetAfter = cmpOr(r.ForgetAfter, DefaultForgetAfter)
		r.MaxApps = cmpOr(r.MaxApps, DefaultMaxApps)
		what := fmt.Sprintf("discovery rule %q", r.Name)
		switch {
		case strings.TrimSpace(r.Name) == "":
			bad("discovery rule %d has no name", i+1)
		case seen[r.Name]:
			bad("%s is listed twice", what)
		}
		seen[r.Name] = true
		rs := &ruleState{rule: r, locOf: locOf, apps: map[string]*foundApp{}, dupLogged: map[string]bool{}}
		bi, ok := p.backendIndex(r.Backend)
		switch {
		case r.Backend == "" && len(p.backends) == 1:
			rs.rule.Backend, bi = p.backends[0].Name, 0
		case !ok:
			bad("%s: unknown backend %q", what, r.Backend)
		}
		if ok || r.Backend == "" && len(p.backends) == 1 {
			if _, q := p.backends[bi].Source.(InstantQuerier); !q {
				bad("%s: backend %q cannot run queries (its source is not an InstantQuerier, as a promsource.Source is)", what, rs.rule.Backend)
			}
		}
		rs.backend = bi
		switch {
		case strings.TrimSpace(r.Query) == "":
			bad("%s has no query", what)
		case ok || r.Backend == "" && len(p.backends) == 1:
			// Parsed as the backend parses an app's metric.
			if err := validateApp(p.backends[bi].Source, App{Metric: r.Query}); err != nil {
				bad("%s: query: %v", what, strings.TrimPrefix(err.Error(), "metric: "))
			}
		}
		if !model.UTF8Validation.IsValidLabelName(r.LocationLabel) {
			bad("%s: location label %q is not a label name", what, r.LocationLabel)
		}
		if r.ForgetAfter < 0 || r.MaxApps < 0 {
			bad("%s: forget_after and max_apps must not be negative", what)
		}
		t, err := template.New(r.Name).Option("missingkey=error").Parse(r.AppName)
		switch {
		case strings.TrimSpace(r.AppName) == "":
			bad("%s has no app name template", what)
		case err != nil:
			bad("%s: app name template: %w", what, err)
		default:
			rs.name = t
			if text, ok := constantText(t); ok {
				// The same name for every series: a clash with a listed
				// app or another such rule is certain, so it is an error now.
				if hasKey(p.appIndex, text) {
					bad("%s: every app it makes is named %q, which is a listed app", what, text)
				}
				if other, dup := constNames[text]; dup {
					bad("%s: every app it makes is named %q, as are those of rule %q", what, text, other)
				}
				constNames[text] = r.Name
			}
		}
		out = append(out, rs)
	}
	for i, a := range out {
		for _, b := range out[:i] {
			if a.rule.Query == b.rule.Query && a.rule.AppName == b.rule.AppName && a.rule.Backend == b.rule.Backend {
				bad("discovery rules %q and %q make the same apps from the same query", b.rule.Name, a.rule.Name)
			}
		}
	}
	return out, errs
}

func cmpOr[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// constantText reports whether t always renders the same text, and that text.
func constantText(t *template.Template) (string, bool) {
	if t.Tree == nil || t.Tree.Root == nil {
		return "", true
	}
	var b strings.Builder
	for _, n := range t.Tree.Root.Nodes {
		tn, ok := n.(*parse.TextNode)
		if !ok {
			return "", false
		}
		b.Write(tn.Text)
	}
	return b.String(), true
}

// matchIndex maps every value of a location's Match list, and every
// location's name, to the location. A value listed by two locations is an
// error; a name matched by another location's list goes to that list.
func matchIndex(p *plan) (map[string]int, []error) {
	var errs []error
	idx := make(map[string]int, len(p.locations))
	for i, l := range p.locations {
		for _, v := range l.Match {
			if j, dup := idx[v]; dup && j != i {
				errs = append(errs, fmt.Errorf("location %q: match value %q is also matched by location %q", l.Name, v, p.locations[j].Name))
				continue
			}
			idx[v] = i
		}
	}
	for i, l := range p.locations {
		if _, ok := idx[l.Name]; !ok {
			idx[l.Name] = i
		}
	}
	return idx, errs
}

// carryRules keeps the apps found by rules that did not change, so that a
// reconfiguration neither forgets them nor makes them wait for the next
// query; a changed rule starts afresh.
func carryRules(old, next []*ruleState, p *plan) {
	prev := make(map[string]*ruleState, len(old))
	for _, rs := range old {
		prev[rs.rule.Name] = rs
	}
	for _, rs := range next {
		o, ok := prev[rs.rule.Name]
		if !ok || !reflect.DeepEqual(o.rule, rs.rule) {
			continue
		}
		rs.failing, rs.failingSince = o.failing, o.failingSince
		for name, f := range o.apps {
			li, ok := rs.locOf[f.locValue]
			if !ok {
				continue // its location is gone
			}
			g := *f
			g.loc, g.app.Location = li, p.locations[li].Name
			rs.apps[name] = &g
		}
	}
}

// DiscoveryResult is what one discovery rule's query found, as
// CheckDiscovery reports it.
type DiscoveryResult struct {
	Rule    string
	Backend string
	// Apps counts the apps the rule would make, per location name.
	Apps map[string]int
	// Skipped counts what the answer left out, by reason: series whose
	// location label maps to no location (unmapped_location), series the
	// app name template could not name (name_template), and names past
	// max_apps (max_apps).
	Skipped map[string]int
	// UnmappedValues are some of the location label values that map to
	// no location.
	UnmappedValues []string
	// Err is why the query failed, if it did.
	Err error
}

// CheckDiscovery runs every discovery rule's query once, now, and reports
// what each would make, without changing anything the monitor shows.
// `availmon -check-config -online` prints it.
func (m *Monitor) CheckDiscovery(ctx context.Context) []DiscoveryResult {
	m.cycleMu.Lock()
	p, rules := m.plan, m.disc.rules
	m.cycleMu.Unlock()
	out := make([]DiscoveryResult, len(rules))
	var wg sync.WaitGroup
	for i, rs := range rules {
		wg.Go(func() {
			// A fresh copy: the monitor's own rule keeps its apps.
			probe := &ruleState{rule: rs.rule, backend: rs.backend, name: rs.name, locOf: rs.locOf, apps: map[string]*foundApp{}}
			a := m.queryRule(ctx, p, probe)
			st := probe.fold(a.vec, a.rt, a.err, a.at, p.locations)
			r := DiscoveryResult{Rule: rs.rule.Name, Backend: rs.rule.Backend, Err: a.err, Apps: map[string]int{},
				UnmappedValues: st.unmappedValues,
				Skipped:        map[string]int{"unmapped_location": st.unmapped, "name_template": st.badName, "max_apps": st.overMax}}
			for _, f := range probe.apps {
				r.Apps[f.app.Location]++
			}
			out[i] = r
		})
	}
	wg.Wait()
	return out
}

// discoveryHealth is what /api/status says of the discovery rules: a rule
// whose query fails leaves its apps unavailable while the backend may
// answer everything else (prometheus_connectivity stays connected), so the
// rules are reported on their own.
type discoveryHealth struct {
	rules   int
	failing []ruleFailure // in the rules' order
}

// ruleFailure is a rule whose last query failed.
type ruleFailure struct {
	rule, backend string
	err           string
	since         time.Time
}

// discoveryHealthOf reads the rules' last answers. It runs under cycleMu.
func discoveryHealthOf(rules []*ruleState) discoveryHealth {
	h := discoveryHealth{rules: len(rules)}
	for _, rs := range rules {
		if rs.failing != nil {
			h.failing = append(h.failing, ruleFailure{rule: rs.rule.Name, backend: rs.rule.Backend,
				err: rs.failing.Error(), since: rs.failingSince})
		}
	}
	return h
}

type discoveryStatusJSON struct {
	// Status is "ok" when every rule's last query answered, "failing"
	// when one did not.
	Status       string            `json:"status"`
	Rules        int               `json:"rules"`
	FailingRules []failingRuleJSON `json:"failing_rules"`
}

type failingRuleJSON struct {
	Rule    string        `json:"rule"`
	Backend string        `json:"backend"`
	Error   string        `json:"error"`
	Since   jsontime.Time `json:"since"`
}

// json is the discovery member of /api/status; nil (left out) without
// rules.
func (h discoveryHealth) json() *discoveryStatusJSON {
	if h.rules == 0 {
		return nil
	}
	out := &discoveryStatusJSON{Status: "ok", Rules: h.rules, FailingRules: make([]failingRuleJSON, len(h.failing))}
	for i, f := range h.failing {
		out.FailingRules[i] = failingRuleJSON{Rule: f.rule, Backend: f.backend, Error: f.err, Since: jsontime.Time(f.since)}
	}
	if len(h.failing) > 0 {
		out.Status = "failing"
	}
	return out
}

// Discovered apps are not in the plan when New restores the saved state:
// they join it when their rule's first answer names them. Their saved state
// waits until then, so that a restart keeps their history and counters as
// it keeps those of listed apps (keyed by name).

// awaitDiscovery keeps a saved app that the plan does not list, when
// discovery rules may find it again. It runs in New.
func (m *Monitor) awaitDiscovery(a savedApp) {
	if len(m.disc.rules) == 0 {
		return
	}
	if m.disc.awaiting == nil {
		m.disc.awaiting = make(map[string]savedApp)
	}
	m.disc.awaiting[a.name] = a
}

// resumeDiscovered gives the apps just added to plan p the state saved for
// them, if any. It runs under cycleMu, after carryState.
func (m *Monitor) resumeDiscovered(p *plan, added []string) {
	if len(m.disc.awaiting) == 0 {
		return
	}
	st := m.state
	for _, name := range added {
		a, ok := m.disc.awaiting[name]
		if !ok {
			continue
		}
		delete(m.disc.awaiting, name)
		i := p.appIndex[name]
		st.apps[i] = a.state
		st.setErr(i, a.err)
		if !a.state.checked() {
			st.apps[i].setStatus(StatusUnavailable)
		}
		for _, e := range a.history[max(0, len(a.history)-m.cfg.historySize):] {
			st.history[i].Add(e, m.cfg.historySize, st.rts)
		}
		st.editDay(i, func(w *history.AppDay) { w.Set(&a.day) })
	}
}

// stopAwaiting drops the saved apps no rule found once every rule has
// answered: they are gone.
func (m *Monitor) stopAwaiting(answers []ruleAnswer) {
	if len(m.disc.awaiting) == 0 {
		return
	}
	for _, a := range answers {
		if a.err != nil {
			return
		}
	}
	if n := len(m.disc.awaiting); n > 0 {
		m.log.Info("discovery: saved apps no rule found after the restart were dropped", "apps", n)
	}
	m.disc.awaiting = nil
}
