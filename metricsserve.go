package availmon

import (
	"bytes"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/availmon/availmon/promexport"
)

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
	byFormat map[expfmt.Format]*encodedBody
}

// metricsBody is the snapshot's families in format, gathered and encoded on
// first use (a scraper keeps to one format: in practice once per snapshot).
func (s *snapshot) metricsBody(exp *promexport.Exporter, f expfmt.Format, last *atomic.Int64) (*encodedBody, error) {
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
		c.byFormat = make(map[expfmt.Format]*encodedBody)
	}
	c.byFormat[f] = b
	return b, nil
}

// encodeMetrics encodes p's families in format f. last is the size of the
// previous snapshot's encoding, which the buffer starts at: grown by
// doubling from nothing, the half-megabyte encoding of 10,000 apps
// allocated twice its size, and a copy to trim it.
func encodeMetrics(exp *promexport.Exporter, p *promexport.Snapshot, f expfmt.Format, last *atomic.Int64) (*encodedBody, error) {
	var buf bytes.Buffer
	n := int(last.Load())
	buf.Grow(n + n/32 + 512)
	// No "# EOF" yet: in OpenMetrics it goes after the live families.
	if err := exp.EncodeSnapshot(&buf, p, f); err != nil {
		return nil, err
	}
	last.Store(int64(buf.Len()))
	return newEncodedBody(trimmed(buf.Bytes())), nil // it may have grown after all: keep only the answer
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
	if g, ok := body.gzipped(); ok && acceptsGzip(r.Header.Values("Accept-Encoding")) {
		h.Set("Content-Encoding", "gzip")
		h.Set("Content-Length", strconv.Itoa(g.size(len(tail))))
		w.WriteHeader(http.StatusOK)
		m.metricsWritten(g.writeTo(w, tail))
		return
	}
	h.Set("Content-Length", strconv.Itoa(len(body.head)+len(tail)))
	w.WriteHeader(http.StatusOK)
	if _, err := w.Write(body.head); err != nil {
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
