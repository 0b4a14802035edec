package objectives

import "github.com/availmon/availmon/promexport"

// Prom is every objective's figures as /metrics exports them, and the
// label names of their series besides objective.
func (s *Snapshot) Prom() ([]promexport.Objective, []string) {
	out := make([]promexport.Objective, len(s.st))
	for i := range s.st {
		e, st := &s.set.entries[i], &s.st[i]
		o := promexport.Objective{Name: e.name, Labels: e.labels, Target: e.def.Target,
			Attainment: ratio(st.Attainment), RemainingRatio: ratio(st.RemainingFraction),
			RemainingSeconds: st.Remaining.Seconds(), State: st.State.String()}
		for k := range o.Burn {
			o.Burn[k] = ratio(st.Burn[k].Rate)
		}
		out[i] = o
	}
	return out, s.set.labelNames
}
