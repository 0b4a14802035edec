package availmon

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"
)

// plan is the set of apps, locations and backends one cycle checks, with the
// indexes derived from it. It is immutable once built: a cycle takes the plan
// at its start, and a snapshot carries the plan it was built from, so that a
// reader sees the old set or the new one, never a mix (Reconfigure).
type plan struct {
	apps      []App
	appIndex  map[string]int
	locations []Location
	locIndex  map[string]int
	appLocs   []int // appLocs[i] is the index of apps[i]'s location
	locApps   [][]int
	locsJSON  lazyBody // /api/locations' data (snapshot.go)
	backends  []Backend
	backendOf []int   // backendOf[i] is the index of apps[i]'s backend
	batches   [][]int // app indexes per Source.Check call, same backend each
	appBatch  []int
	// batchRuns reports whether every batch is a run of apps (isRun), as
	// the cycles then keep each batch's results as its Check returned them.
	batchRuns bool
	// nListed is how many apps come from Options.Apps; the ones after them
	// were found by discovery rules and are never part of a batch.
	nListed int
	// ctl are the operators' controls for these apps (controls.go).
	ctl controls
}

// buildPlan validates the apps, locations and backends of opts and indexes
// them. Every problem found is returned, not just the first.
func buildPlan(opts *Options) (*plan, []error) {
	var pr planProblems
	p := &plan{
		appIndex:  make(map[string]int, len(opts.Apps)),
		locIndex:  make(map[string]int, len(opts.Locations)),
		locations: append([]Location(nil), opts.Locations...),
		backends:  append([]Backend(nil), opts.Backends...),
	}
	p.planLocations(&pr)
	backendIndex := p.planBackends(opts, &pr)
	p.planApps(opts, backendIndex, &pr)
	if len(pr) > 0 {
		return nil, pr
	}
	var errs []error
	p.batches, p.appBatch, errs = planBatches(p.apps[:p.nListed], p.backendOf[:p.nListed], p.backends)
	if len(errs) > 0 {
		return nil, errs
	}
	p.batchRuns = !slices.ContainsFunc(p.batches, func(b []int) bool { return !isRun(b) })
	if p.ctl, errs = newControls(p, opts); len(errs) > 0 {
		return nil, errs
	}
	return p, nil
}

// planProblems collects what is wrong with the Options, so that New reports
// every problem at once.
type planProblems []error

func (pr *planProblems) add(format string, args ...any) {
	*pr = append(*pr, fmt.Errorf(format, args...))
}

// planLocations checks the locations and indexes them by name.
func (p *plan) planLocations(pr *planProblems) {
	for i, l := range p.locations {
		switch {
		case strings.TrimSpace(l.Name) == "":
			pr.add("location %d has no name", i+1)
		case hasKey(p.locIndex, l.Name):
			pr.add("location %q is listed twice", l.Name)
		case !utf8.ValidString(l.Name):
			pr.add("location %q: the name is not valid UTF-8 (Prometheus refuses it as a label value)", l.Name)
		default:
			p.locIndex[l.Name] = i
		}
		if math.IsNaN(l.Latitude) || l.Latitude < -90 || l.Latitude > 90 {
			pr.add("location %q: latitude %v is outside [-90, 90]", l.Name, l.Latitude)
		}
		if math.IsNaN(l.Longitude) || l.Longitude < -180 || l.Longitude > 180 {
			pr.add("location %q: longitude %v is outside [-180, 180]", l.Name, l.Longitude)
		}
	}
}

// planBackends checks the backends (Options.Source being one of its own)
// and returns their index by name.
func (p *plan) planBackends(opts *Options, pr *planProblems) map[string]int {
	if opts.Source != nil {
		if len(p.backends) > 0 {
			pr.add("set either Source or Backends, not both")
		}
		p.backends = []Backend{{Name: defaultBackendName, Source: opts.Source}}
	}
	backendIndex := make(map[string]int, len(p.backends))
	for i, b := range p.backends {
		switch {
		case strings.TrimSpace(b.Name) == "":
			pr.add("backend %d has no name", i+1)
		case hasKey(backendIndex, b.Name):
			pr.add("backend %q is listed twice", b.Name)
		}
		backendIndex[b.Name] = i
		if b.Source == nil {
			pr.add("backend %q has no source", b.Name)
		}
		if b.BatchSize < 0 {
			pr.add("backend %q: batch size %d is negative", b.Name, b.BatchSize)
		}
		if p.backends[i].BatchSize == 0 {
			p.backends[i].BatchSize = 1
		}
	}
	if len(opts.Apps) > 0 && len(p.backends) == 0 {
		pr.add("no backend: set Source or Backends")
	}
	return backendIndex
}

// planApps checks the apps, indexes them, and ties each to its location
// and its backend.
func (p *plan) planApps(opts *Options, backendIndex map[string]int, pr *planProblems) {
	p.apps = append([]App(nil), opts.Apps...)
	p.nListed = len(p.apps)
	p.appLocs = make([]int, len(p.apps))
	p.backendOf = make([]int, len(p.apps))
	p.locApps = make([][]int, len(p.locations))
	for i, a := range p.apps {
		if strings.TrimSpace(a.Name) == "" {
			pr.add("app %d has no name", i+1)
		} else if hasKey(p.appIndex, a.Name) {
			pr.add("app %q is listed twice", a.Name)
		} else if !utf8.ValidString(a.Name) {
			pr.add("app %q: the name is not valid UTF-8 (Prometheus refuses it as a label value)", a.Name)
		}
		p.appIndex[a.Name] = i
		if s, ok := a.Settings.(fmt.Stringer); ok && a.Metric == "" {
			p.apps[i].Metric = s.String()
		}
		if li, ok := p.locIndex[a.Location]; !ok {
			pr.add("app %q: unknown location %q", a.Name, a.Location)
		} else {
			p.appLocs[i] = li
			p.locApps[li] = append(p.locApps[li], i)
			// One copy of the name for all its apps, not one per app as
			// a configuration parser makes them.
			p.apps[i].Location = p.locations[li].Name
		}
		p.planAppBackend(i, a, backendIndex, pr)
	}
}

// planAppBackend ties app i, given as a, to the backend it names (or the
// only one), and has that backend's source validate a.
func (p *plan) planAppBackend(i int, a App, backendIndex map[string]int, pr *planProblems) {
	switch bi, ok := backendIndex[a.Backend]; {
	case ok:
		p.backendOf[i] = bi
		p.apps[i].Backend = p.backends[bi].Name
	case a.Backend == "" && len(p.backends) == 1:
		p.apps[i].Backend = p.backends[0].Name
	case a.Backend == "":
		pr.add("app %q: no backend named, and there are %d", a.Name, len(p.backends))
	default:
		pr.add("app %q: unknown backend %q", a.Name, a.Backend)
	}
	if len(p.backends) > 0 && p.apps[i].Backend == p.backends[p.backendOf[i]].Name {
		if err := validateApp(p.backends[p.backendOf[i]].Source, a); err != nil {
			pr.add("app %q: %w", a.Name, err)
		}
	}
}

// backendIndex returns the index of the backend named name.
func (p *plan) backendIndex(name string) (int, bool) {
	for i, b := range p.backends {
		if b.Name == name {
			return i, true
		}
	}
	return 0, false
}

// planBatches groups app indexes by backend, in order, into chunks of at most
// the backend's batch size, unless the backend's source groups them itself
// (BatchPlanner).
func planBatches(apps []App, backendOf []int, backends []Backend) (batches [][]int, appBatch []int, errs []error) {
	per := make([][]int, len(backends))
	for i, b := range backendOf {
		per[b] = append(per[b], i)
	}
	appBatch = make([]int, len(backendOf))
	for b, idx := range per {
		if bp, ok := backends[b].Source.(BatchPlanner); ok && len(idx) > 0 {
			planned, err := planSourceBatches(bp, apps, idx, backends[b].BatchSize)
			if err != nil {
				errs = append(errs, fmt.Errorf("backend %q: %w", backends[b].Name, err))
				continue
			}
			for _, batch := range planned {
				for _, i := range batch {
					appBatch[i] = len(batches)
				}
				batches = append(batches, batch)
			}
			continue
		}
		size := backends[b].BatchSize
		for len(idx) > 0 {
			n := min(size, len(idx))
			for _, i := range idx[:n] {
				appBatch[i] = len(batches)
			}
			batches = append(batches, idx[:n:n])
			idx = idx[n:]
		}
	}
	return batches, appBatch, errs
}

// planSourceBatches asks bp to batch the apps at idx, and returns the
// batches as indexes into apps. A partition that leaves an app out, or
// puts one in two batches, is refused: the cycles would check it never,
// or twice.
func planSourceBatches(bp BatchPlanner, apps []App, idx []int, maxBatch int) ([][]int, error) {
	sub := make([]App, len(idx))
	for k, i := range idx {
		sub[k] = apps[i]
	}
	seen := make([]bool, len(idx))
	var out [][]int
	for _, b := range bp.PlanBatches(sub, maxBatch) {
		if len(b) == 0 {
			continue
		}
		batch := make([]int, len(b))
		for k, j := range b {
			if j < 0 || j >= len(idx) || seen[j] {
				return nil, fmt.Errorf("PlanBatches returned app index %d twice or out of [0, %d)", j, len(idx))
			}
			seen[j] = true
			batch[k] = idx[j]
		}
		out = append(out, batch)
	}
	if i := slices.Index(seen, false); i >= 0 {
		return nil, fmt.Errorf("PlanBatches left out app %q", sub[i].Name)
	}
	return out, nil
}

// appsOf lists the apps of backend bi, in the plan's order.
func (p *plan) appsOf(bi int) []App {
	var apps []App
	for i, a := range p.apps {
		if p.backendOf[i] == bi {
			apps = append(apps, a)
		}
	}
	return apps
}
