package availmon

import "math"

// Flap damping: an app's shown state moves to a new value only after that
// value has come back from enough consecutive checks. Every raw check still
// goes into the app's history and the per-check counters; only the shown
// state, the state counts and the events follow the accepted state.

// thresholds are the consecutive checks needed to accept a change: fail
// for down and unavailable, success for up.
type thresholds struct{ fail, success int }

func (t thresholds) need(s Status) int {
	if s == StatusUp {
		return t.success
	}
	return t.fail
}

// damper remembers the run of raw results that differ from the accepted
// state. appState keeps its fields, packed with its own.
type damper struct {
	run  int32      // consecutive checks that returned cand
	cand statusCode // the state the run is of
}

// step folds one raw result into the damper and returns the state to show.
// An app never checked before takes its first result at once: there is no
// state to hold on to. A result equal to the accepted state ends any run.
func (d *damper) step(accepted Status, checked bool, raw Status, th thresholds) Status {
	if !checked || raw == accepted {
		*d = damper{}
		return raw
	}
	switch c := codeOf(raw); {
	case c != d.cand:
		d.cand, d.run = c, 1
	case d.run < math.MaxInt32: // it stops there, 68 years of checks a second on
		d.run++
	}
	if int(d.run) >= th.need(raw) {
		*d = damper{}
		return raw
	}
	return accepted
}

// appThresholds resolves every app's thresholds from its own and the
// Options' values; zero means 1.
func appThresholds(apps []App, o *Options) []thresholds {
	def := thresholds{fail: max(1, o.FailThreshold), success: max(1, o.SuccessThreshold)}
	out := make([]thresholds, len(apps))
	for i, a := range apps {
		out[i] = def
		if a.FailThreshold > 0 {
			out[i].fail = a.FailThreshold
		}
		if a.SuccessThreshold > 0 {
			out[i].success = a.SuccessThreshold
		}
	}
	return out
}
