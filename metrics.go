package availmon

import (
	"fmt"
	"net/http"

	"github.com/go-chi/chi/v5/middleware"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/availmon/availmon/promexport"
)

// initMetrics creates the monitor's exporter on a registry of its own, and
// registers its families on o.Registerer too when the caller gives one.
func (m *Monitor) initMetrics(o *Options) error {
	m.exp = promexport.New(promexport.Options{
		Snapshot:     func() *promexport.Snapshot { return m.snap.Load().promSnapshot() },
		Interval:     m.Interval,
		ExportLabels: m.ctlOpts.exportLabels,
	})
	for _, b := range m.plan.backends {
		m.exp.InitTarget(b.Name)
	}
	own := prometheus.NewRegistry()
	own.MustRegister(m.exp.Live())
	own.MustRegister(m.disc.collectors()...)
	own.MustRegister(m.bfm.collectors()...)
	var saves prometheus.Collector
	if m.store != nil {
		saves = promexport.SaveCollector(m.saves.promStatus)
		own.MustRegister(saves)
	}
	m.live = &liveFamilies{g: liveGatherer(own, o.Gatherer)}
	m.filteredMetrics = m.newFilteredMetrics()
	if o.Registerer == nil {
		return nil
	}
	cs := append([]prometheus.Collector{m.exp}, m.disc.collectors()...)
	cs = append(cs, m.bfm.collectors()...)
	if saves != nil {
		cs = append(cs, saves)
	}
	var requests prometheus.Collector
	if o.RegisterHTTPMetrics {
		requests = m.exp.Requests()
	}
	return registerAll(o.Registerer, cs, requests)
}

// registerAll registers cs, and requests unless nil, on reg: all of them
// or, with an error that names the option to change, none, so that the
// caller may call New again with other Options.
func registerAll(reg prometheus.Registerer, cs []prometheus.Collector, requests prometheus.Collector) error {
	var done []prometheus.Collector
	undo := func() {
		for _, c := range done {
			reg.Unregister(c)
		}
	}
	for _, c := range cs {
		if err := reg.Register(c); err != nil {
			undo()
			return fmt.Errorf("availmon: registering metrics on Options.Registerer: %w (a family of the same name is there, "+
				"such as another monitor's: give each monitor labels of its own with prometheus.WrapRegistererWith)", err)
		}
		done = append(done, c)
	}
	if requests == nil {
		return nil
	}
	if err := reg.Register(requests); err != nil {
		undo()
		return fmt.Errorf("availmon: registering %s on Options.Registerer: %w (the registry has its own, "+
			"such as the program's request counter: leave Options.RegisterHTTPMetrics false; "+
			"the handler's /metrics serves the monitor's anyway)", promexport.NameHTTPRequests, err)
	}
	return nil
}

// promSnapshot is the snapshot as the exporter sees it. It is built per
// call, not kept: /metrics encodes it once per format and keeps only the
// bytes, which are a fraction of its 80 bytes an app; only the rare
// filtered scrape, or a registry of the embedding program, build it again.
func (s *snapshot) promSnapshot() *promexport.Snapshot {
	pl := s.p
	p := &promexport.Snapshot{
		Seq:               s.seq,
		Apps:              make([]promexport.App, len(s.apps)),
		Locations:         make([]promexport.Location, len(s.locs)),
		Backends:          make([]promexport.Backend, len(pl.backends)),
		LastCycleEnd:      s.at,
		LastCycleDuration: s.cycleDuration,
	}
	for i, a := range s.apps {
		p.Apps[i] = promexport.App{Name: pl.apps[i].Name, Location: pl.apps[i].Location, Status: string(a.status()),
			Labels: pl.ctl.exportedLabels(i), Maintenance: a.maint(), Backend: pl.apps[i].Backend}
	}
	for i, l := range s.locs {
		p.Locations[i] = promexport.Location{Name: pl.locations[i].Name, Up: l.up, Down: l.down, Unavailable: l.unavailable}
	}
	for i, b := range pl.backends {
		p.Backends[i] = promexport.Backend{Name: b.Name, Connected: s.backends[i], Known: s.backendSeen[i]}
	}
	p.Services = s.promServices()
	return p
}

// routeUnmatched labels requests that matched no route, so that probing
// random paths cannot grow http_requests_total.
const routeUnmatched = "unmatched"

// countRequests feeds http_requests_total with the route pattern that
// served the request, relative to where the handler is mounted.
func (m *Monitor) countRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
		mark := routeMark(r)
		next.ServeHTTP(ww, r)
		route := routeLabel(r, mark)
		status := ww.Status()
		if status == 0 {
			status = http.StatusOK
		}
		m.exp.ObserveRequest(r.Method, route, status)
	})
}

// slogPrinter lets promhttp log through the monitor's logger, at debug
// level: what it reports on a filtered scrape is mostly a client that went
// away, the client's business.
type slogPrinter struct{ m *Monitor }

func (p slogPrinter) Println(v ...any) { p.m.log.Debug("serving /metrics", "err", fmt.Sprint(v...)) }
