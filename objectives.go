package availmon

import (
	"cmp"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/availmon/availmon/internal/cachedbody"
	"github.com/availmon/availmon/internal/jsontime"
	"github.com/availmon/availmon/internal/objectives"
	"github.com/availmon/availmon/objective"
)

// Objectives (Options.Objectives) are resolved against the plan by
// internal/objectives, evaluated at every snapshot from its Book, served at
// /api/objectives and /metrics, and announced on /api/ws when their state
// changes. Everything here but the handlers runs under cycleMu.

// objectiveState is the monitor's objectives, under cycleMu.
type objectiveState struct {
	defs    []objective.Objective
	tz      *time.Location
	set     *objectives.Set
	setPlan *plan // the plan set was resolved against
	tracker objectives.Tracker
}

// checkObjectives resolves defs against plan p; discovery tells that apps
// may come later. A selector that matches no app yet is logged, not an
// error.
func (m *Monitor) checkObjectives(p *plan, defs []objective.Objective, tz *time.Location, discovery bool) (*objectives.Set, []error) {
	set, errs := objectives.Compile(defs, cmp.Or(tz, time.UTC), fleetOf(p, discovery))
	for _, name := range set.Unmatched() {
		m.log.Warn("objective: its selector matches no app yet", "objective", name)
	}
	return set, errs
}

// setObjectives replaces the objectives; the next snapshot evaluates them.
func (m *Monitor) setObjectives(p *plan, set *objectives.Set, defs []objective.Objective, tz *time.Location) {
	m.objs.defs, m.objs.tz = slices.Clone(defs), cmp.Or(tz, time.UTC)
	m.objs.set, m.objs.setPlan = set, p
}

// evaluateObjectives computes the objectives' figures for snapshot s and
// returns an event for each that changed state. The set is resolved again
// when the plan changed (a reload, discovery).
func (m *Monitor) evaluateObjectives(s *snapshot, now time.Time) []Event {
	o := &m.objs
	if o.setPlan != m.plan {
		o.set, _ = objectives.Compile(o.defs, o.tz, fleetOf(m.plan, len(m.disc.rules) > 0))
		o.setPlan = m.plan
	}
	snap, changes := o.tracker.Evaluate(o.set, now, s.book)
	s.objs, s.objOne = snap, make([]lazyBody, snap.Len())
	var evs []Event
	for _, c := range changes {
		evs = append(evs, Event{Type: EventObjectiveState, Time: now,
			Objective: &ObjectiveEvent{Name: c.Name, State: c.To.String(), PreviousState: c.From.String()}})
		m.log.Info("objective changed state", "objective", c.Name, "state", c.To.String(), "previous", c.From.String())
	}
	return evs
}

// fleetOf is plan p as objectives are resolved against it.
func fleetOf(p *plan, discovery bool) objectives.Fleet {
	f := objectives.Fleet{Discovery: discovery,
		Apps: make([]string, len(p.apps)), Locations: make([]string, len(p.locations)),
		Services: make([]string, len(p.ctl.services)), AppLocation: p.appLocs}
	for i, a := range p.apps {
		f.Apps[i] = a.Name
	}
	for i, l := range p.locations {
		f.Locations[i] = l.Name
	}
	for i, s := range p.ctl.services {
		f.Services[i] = s.Name
	}
	f.Match = func(sel map[string]string) []int {
		var out []int
		for j, k := range slices.Sorted(mapKeysOf(sel)) {
			l := p.ctl.labelIndex[k][sel[k]]
			if j == 0 {
				out = slices.Clone(l)
				continue
			}
			out = intersectSorted(out, l)
		}
		return out
	}
	return f
}

func mapKeysOf(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// objectivesParams are the query parameters /api/objectives accepts.
var objectivesParams = "accepted query parameters: state, label.KEY (repeatable; all must hold)"

func (m *Monitor) listObjectives(w http.ResponseWriter, r *http.Request) {
	s := m.snap.Load()
	if r.URL.RawQuery == "" {
		body := s.objList.get(func() any {
			out := make([]objectives.JSON, s.objs.Len())
			for i := range out {
				out[i] = s.objs.JSON(i)
			}
			return out
		})
		m.writeEncoded(w, r, body, countMetaJSON{Count: s.objs.Len(), Timestamp: jsontime.Time(s.made)})
		return
	}
	idx, err := filterObjectives(s.objs, r.URL.RawQuery)
	if err != nil {
		m.writeError(w, r, err)
		return
	}
	out := make([]objectives.JSON, len(idx))
	for j, i := range idx {
		out[j] = s.objs.JSON(i)
	}
	writeJSON(w, http.StatusOK, envelope{Data: out, Meta: countMetaJSON{Count: len(out), Timestamp: jsontime.Time(s.made)}})
}

// filterObjectives returns the objectives that pass ?state= and every
// ?label.KEY=VALUE. An unknown state or label key is an error; a known key
// with a value no objective has an empty answer.
func filterObjectives(s *objectives.Snapshot, rawQuery string) ([]int, error) {
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return nil, validationError("invalid query string", err.Error(), objectivesParams)
	}
	var state string
	labels := map[string][]string{}
	for key, vs := range q {
		switch {
		case key == "state":
			if len(vs) != 1 {
				return nil, validationError("invalid state", fmt.Sprintf("state is given %d times", len(vs)), objectivesParams)
			}
			if !slices.Contains([]string{"ok", "at_risk", "breached"}, vs[0]) {
				return nil, validationError("invalid state", fmt.Sprintf("state %q is not supported", vs[0]), "allowed values: ok, at_risk, breached")
			}
			state = vs[0]
		case strings.HasPrefix(key, labelParam):
			lk := key[len(labelParam):]
			if !slices.Contains(s.LabelNames(), lk) {
				return nil, validationError("unknown label key", fmt.Sprintf("no objective has a label %q", lk),
					"label keys: "+cmp.Or(strings.Join(s.LabelNames(), ", "), "none (no objective has labels)"))
			}
			labels[lk] = vs
		default:
			return nil, validationError(fmt.Sprintf("unknown query parameter %q", key), objectivesParams)
		}
	}
	var idx []int
	for i := range s.Len() {
		if state != "" && s.Status(i).State.String() != state {
			continue
		}
		ok := true
		for k, vs := range labels {
			for _, v := range vs {
				ok = ok && s.Labels(i)[k] == v
			}
		}
		if ok {
			idx = append(idx, i)
		}
	}
	return idx, nil
}

func (m *Monitor) getObjective(w http.ResponseWriter, r *http.Request) {
	name, err := pathName(r)
	if err != nil {
		m.writeError(w, r, err)
		return
	}
	s := m.snap.Load()
	i, ok := s.objs.Index(name)
	if !ok {
		m.writeError(w, r, notFoundError("objective not found", fmt.Sprintf("no objective is named %q", name)))
		return
	}
	m.writeEncoded(w, r, s.objectiveBody(i), metaJSON{Timestamp: jsontime.Time(s.made)})
}

func (s *snapshot) objectiveBody(i int) *cachedbody.Body {
	return s.objOne[i].get(func() any { return s.objs.Detail(i) })
}
