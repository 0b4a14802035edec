package availmon

// Discovered apps are not in the plan when New restores the saved state:
// they join it when their rule's first answer names them. Their saved state
// waits until then, so that a restart keeps their history and counters as
// it keeps those of listed apps (keyed by name).

// awaitDiscovery keeps a saved app that the plan does not list, when
// discovery rules may find it again. It runs in New.
func (m *Monitor) awaitDiscovery(a savedApp) {
	if len(m.rules) == 0 {
		return
	}
	if m.awaiting == nil {
		m.awaiting = make(map[string]savedApp)
	}
	m.awaiting[a.name] = a
}

// resumeDiscovered gives the apps just added to plan p the state saved for
// them, if any. It runs under cycleMu, after carryState.
func (m *Monitor) resumeDiscovered(p *plan, added []string) {
	if len(m.awaiting) == 0 {
		return
	}
	st := m.state
	for _, name := range added {
		a, ok := m.awaiting[name]
		if !ok {
			continue
		}
		delete(m.awaiting, name)
		i := p.appIndex[name]
		st.apps[i] = a.state
		if !a.state.checked() {
			st.apps[i].setStatus(StatusUnavailable)
		}
		for _, e := range a.history[max(0, len(a.history)-m.historySize):] {
			st.history[i].add(e, m.historySize)
		}
		st.appDay[i].set(&a.day)
	}
}

// stopAwaiting drops the saved apps no rule found once every rule has
// answered: they are gone.
func (m *Monitor) stopAwaiting(answers []ruleAnswer) {
	if len(m.awaiting) == 0 {
		return
	}
	for _, a := range answers {
		if a.err != nil {
			return
		}
	}
	if n := len(m.awaiting); n > 0 {
		m.log.Info("discovery: saved apps no rule found after the restart were dropped", "apps", n)
	}
	m.awaiting = nil
}
