package availmon

import (
	"cmp"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/prometheus/common/model"

	"github.com/availmon/availmon/internal/promanswer"
)

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
