package availmon

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/availmon/availmon/internal/cachedbody"
	"github.com/availmon/availmon/internal/ledger"
	"github.com/availmon/availmon/period"
	"github.com/availmon/availmon/promexport"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
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
	own.MustRegister(m.disc.metrics.collectors()...)
	own.MustRegister(m.bf.metrics.collectors()...)
	var saves prometheus.Collector
	if m.persist.store != nil {
		saves = promexport.SaveCollector(m.persist.saves.promStatus)
		own.MustRegister(saves)
	}
	var windows prometheus.Collector
	if len(o.ExportWindows) > 0 {
		windows = newWindowMetrics(o.ExportWindows, m.snap.Load)
		own.MustRegister(windows)
	}
	m.live = &liveFamilies{g: liveGatherer(own, o.Gatherer)}
	m.filteredMetrics = m.newFilteredMetrics()
	if o.Registerer == nil {
		return nil
	}
	cs := append([]prometheus.Collector{m.exp, m.exp.Objectives()}, m.disc.metrics.collectors()...)
	cs = append(cs, m.bf.metrics.collectors()...)
	for _, c := range []prometheus.Collector{saves, windows} {
		if c != nil {
			cs = append(cs, c)
		}
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
	if s.objs != nil {
		p.Objectives, p.ObjectiveLabels = s.objs.Prom()
	}
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

// /metrics is two parts. The snapshot's families (availmon_up for every
// app, and the other figures of a cycle) are gathered once per snapshot and
// encoded once per exposition format, with gzip made from that once too.
// The live families (request counters, scrape histograms, the interval, and
// whatever Options.Gatherer holds, such as the Go and process collectors)
// are gathered and encoded per scrape; they are small. The answer is the
// snapshot part followed by the live one, so that gzip's CRC continues over
// the live bytes without compressing the snapshot part again.

// metricsCache is a snapshot's part of /metrics: only the encodings are
// kept, since the gathered families take several times their memory.
type metricsCache struct {
	mu       sync.Mutex
	byFormat map[expfmt.Format]*cachedbody.Body
}

// metricsBody is the snapshot's families in format, gathered and encoded on
// first use (a scraper keeps to one format: in practice once per snapshot).
func (s *snapshot) metricsBody(exp *promexport.Exporter, f expfmt.Format, last *atomic.Int64) (*cachedbody.Body, error) {
	c := &s.metrics
	c.mu.Lock()
	defer c.mu.Unlock()
	if b, ok := c.byFormat[f]; ok {
		return b, nil
	}
	b, err := encodeMetrics(exp, s.promSnapshot(), f, last)
	if err != nil {
		return nil, err
	}
	if c.byFormat == nil {
		c.byFormat = make(map[expfmt.Format]*cachedbody.Body)
	}
	c.byFormat[f] = b
	return b, nil
}

// encodeMetrics encodes p's families in format f. last is the size of the
// previous snapshot's encoding, which the buffer starts at: grown by
// doubling from nothing, the half-megabyte encoding of 10,000 apps
// allocated twice its size, and a copy to trim it.
func encodeMetrics(exp *promexport.Exporter, p *promexport.Snapshot, f expfmt.Format, last *atomic.Int64) (*cachedbody.Body, error) {
	var buf bytes.Buffer
	n := int(last.Load())
	buf.Grow(n + n/32 + 512)
	// No "# EOF" yet: in OpenMetrics it goes after the live families.
	if err := exp.EncodeSnapshot(&buf, p, f); err != nil {
		return nil, err
	}
	last.Store(int64(buf.Len()))
	return cachedbody.New(cachedbody.Trimmed(buf.Bytes())), nil // it may have grown after all: keep only the answer
}

// liveGatherer gathers the monitor's live families and extra's, leaving
// out those of extra that the monitor serves itself (a registry the
// monitor's families were registered on has them too).
func liveGatherer(own, extra prometheus.Gatherer) prometheus.Gatherer {
	if extra == nil {
		return own
	}
	snapshotNames := promexport.FamilyNames()
	return prometheus.GathererFunc(func() ([]*dto.MetricFamily, error) {
		mine, err := own.Gather()
		theirs, errExtra := extra.Gather()
		theirs = slices.DeleteFunc(theirs, func(mf *dto.MetricFamily) bool {
			name := mf.GetName()
			_, found := slices.BinarySearchFunc(mine, name, func(f *dto.MetricFamily, n string) int {
				return strings.Compare(f.GetName(), n)
			})
			return found || slices.Contains(snapshotNames, name)
		})
		// Both lists are sorted by name, and now disjoint.
		out := append(mine, theirs...)
		slices.SortFunc(out, func(a, b *dto.MetricFamily) int { return strings.Compare(a.GetName(), b.GetName()) })
		return out, errors.Join(err, errExtra)
	})
}

// serveMetrics answers a scrape from the snapshot's encoded families and a
// fresh gather of the live ones.
func (m *Monitor) serveMetrics(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Has("name[]") {
		// A filtered scrape is rare: promhttp filters a full gather.
		m.filteredMetrics.ServeHTTP(w, r)
		return
	}
	format := expfmt.NegotiateAccept(r.Header, expfmt.DefaultOpenMetricsAcceptedFormats()...)
	s := m.snap.Load()
	body, err := s.metricsBody(m.exp, format, &m.bodyHints.metrics)
	if err != nil {
		m.log.Error("serving /metrics: gathering the snapshot's families", "err", err)
		http.Error(w, "An error has occurred while gathering metrics:\n\n"+err.Error(), http.StatusInternalServerError)
		return
	}
	g := m.live.gather()
	if g.err != nil {
		// As promhttp's ContinueOnError: serve what was gathered.
		m.log.Error("serving /metrics: gathering live families", "err", g.err)
	}
	tail := g.encoded(format, func(mf *dto.MetricFamily, err error) {
		m.log.Error("serving /metrics: encoding", "family", mf.GetName(), "err", err)
	})

	h := w.Header()
	h.Set("Content-Type", string(format))
	h.Set("Vary", "Accept, Accept-Encoding")
	if g, ok := body.GzippedFor(r.Header.Values("Accept-Encoding")); ok {
		h.Set("Content-Encoding", "gzip")
		h.Set("Content-Length", strconv.Itoa(g.Size(len(tail))))
		w.WriteHeader(http.StatusOK)
		m.metricsWritten(g.WriteTo(w, tail))
		return
	}
	h.Set("Content-Length", strconv.Itoa(len(body.Head())+len(tail)))
	w.WriteHeader(http.StatusOK)
	if _, err := w.Write(body.Head()); err != nil {
		m.metricsWritten(err)
		return
	}
	_, err = w.Write(tail)
	m.metricsWritten(err)
}

// metricsWritten notes a scrape whose client went away: one debug line,
// since a scraper that hangs up is the scraper's business.
func (m *Monitor) metricsWritten(err error) {
	if err != nil {
		m.log.Debug("serving /metrics: the client went away", "err", err)
	}
}

// snapshotGatherer gathers the current snapshot's families.
func (m *Monitor) snapshotGatherer() prometheus.Gatherer {
	return prometheus.GathererFunc(func() ([]*dto.MetricFamily, error) {
		return m.exp.GatherSnapshot(m.snap.Load().promSnapshot())
	})
}

// newFilteredMetrics serves scrapes that name the families they want.
func (m *Monitor) newFilteredMetrics() http.Handler {
	return promhttp.HandlerFor(prometheus.Gatherers{m.snapshotGatherer(), m.live.g}, promhttp.HandlerOpts{
		ErrorLog: slogPrinter{m},
		// Stop at the first failure: a client that went away costs one
		// line, not one per family.
		ErrorHandling:     promhttp.HTTPErrorOnError,
		EnableOpenMetrics: true,
	})
}

// liveFamilies gathers /metrics' live families, one gather at a time:
// scrapes that arrive while one is under way share its result (as promhttp's
// CoalesceGather does), and its encoding per format. The process collector
// alone reads half a dozen /proc files per gather, which under a burst of
// scrapes costs more than writing the answers.
type liveFamilies struct {
	g prometheus.Gatherer

	mu  sync.Mutex
	cur *liveGather // the gather under way, or nil
}

type liveGather struct {
	done chan struct{} // closed when mfs and err are set
	mfs  []*dto.MetricFamily
	err  error

	mu  sync.Mutex
	enc map[expfmt.Format][]byte
}

// gather returns a gather that was under way when called, or a new one.
func (l *liveFamilies) gather() *liveGather {
	l.mu.Lock()
	if g := l.cur; g != nil {
		l.mu.Unlock()
		<-g.done
		return g
	}
	g := &liveGather{done: make(chan struct{})}
	l.cur = g
	l.mu.Unlock()

	defer func() {
		l.mu.Lock()
		l.cur = nil
		l.mu.Unlock()
		close(g.done)
	}()
	g.mfs, g.err = l.g.Gather()
	return g
}

// encoded is the gather's families in format, closed (an OpenMetrics
// "# EOF" included), encoded on first use. onErr sees encoding errors.
func (g *liveGather) encoded(f expfmt.Format, onErr func(*dto.MetricFamily, error)) []byte {
	g.mu.Lock()
	defer g.mu.Unlock()
	if b, ok := g.enc[f]; ok {
		return b
	}
	var buf bytes.Buffer
	enc := expfmt.NewEncoder(&buf, f)
	for _, mf := range g.mfs {
		if err := enc.Encode(mf); err != nil {
			onErr(mf, err)
		}
	}
	if c, ok := enc.(expfmt.Closer); ok {
		c.Close() //nolint:errcheck // a bytes.Buffer does not fail
	}
	if g.enc == nil {
		g.enc = make(map[expfmt.Format][]byte)
	}
	g.enc[f] = buf.Bytes()
	return g.enc[f]
}

// observeRequests gives a Source that reports its own requests
// (RequestReporter) the observer for backend b's scrape metrics, so that
// every request is one observation: a batch that falls back to one query
// per app counts each. perRequest is false for other Sources, whose Check
// calls the Monitor counts.
func (m *Monitor) observeRequests(ctx context.Context, p *plan, b int) (_ context.Context, perRequest bool) {
	if !reportsRequests(p.backends[b].Source) {
		return ctx, false
	}
	name := p.backends[b].Name
	return WithRequestObserver(ctx, func(d time.Duration, err error) {
		m.exp.ObserveScrape(name, d, err)
	}), true
}

// windowMetrics exports each app's availability and coverage over the
// windows of Options.ExportWindows, from the snapshot's ledger, for
// dashboards that graph long windows without a range query over months of
// samples. The figures are made once per snapshot.
type windowMetrics struct {
	windows         []period.Window
	snap            func() *snapshot
	avail, coverage *prometheus.Desc
	mu              sync.Mutex
	made            uint64 // the seq of the snapshot metrics were made of: its pointer would keep its whole record alive
	metrics         []prometheus.Metric
}

func newWindowMetrics(ws []period.Window, snap func() *snapshot) *windowMetrics {
	labels := []string{"app", "location", "window"}
	return &windowMetrics{windows: ws, snap: snap,
		avail: prometheus.NewDesc("availmon_app_availability_ratio",
			"Time up over time up or down of the app over the window ending at the last cycle (Options.ExportWindows).", labels, nil),
		coverage: prometheus.NewDesc("availmon_app_coverage_ratio",
			"Time of known state over the time outside maintenance of the app over the window ending at the last cycle.", labels, nil),
	}
}

func (c *windowMetrics) Describe(ch chan<- *prometheus.Desc) { ch <- c.avail; ch <- c.coverage }

func (c *windowMetrics) Collect(ch chan<- prometheus.Metric) {
	for _, m := range c.collect() {
		ch <- m
	}
}

func (c *windowMetrics) collect() []prometheus.Metric {
	s := c.snap()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.metrics != nil && c.made == s.seq {
		return c.metrics
	}
	b := s.book
	var out []prometheus.Metric
	for _, w := range c.windows {
		rng := w.Ending(b.At)
		q := ledger.Query{From: rng.Start, To: rng.End}
		for i := range b.Current(ledger.App) {
			f := b.App(i, q)
			lv := []string{b.Name(ledger.App, i), b.AppLocation(i), w.String()}
			if a, ok := f.Availability(); ok {
				out = append(out, prometheus.MustNewConstMetric(c.avail, prometheus.GaugeValue, a, lv...))
			}
			if cv, ok := f.Coverage(); ok {
				out = append(out, prometheus.MustNewConstMetric(c.coverage, prometheus.GaugeValue, cv, lv...))
			}
		}
	}
	c.made, c.metrics = s.seq, out
	return out
}
