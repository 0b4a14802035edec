package availmon

import (
	"context"
	"sync"
)

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
	p, rules := m.plan, m.rules
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
