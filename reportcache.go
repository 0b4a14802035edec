package availmon

import (
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/availmon/availmon/internal/ledger"
	"github.com/availmon/availmon/internal/report"
)

// A report of a closed period is the same from snapshot to snapshot until
// the ledger's past changes: a backfill fills it, a maintenance window
// marks or unmarks it, a reconfiguration or a restore replaces the
// roster, or the retention prunes into the period. At 100,000 apps a
// report takes about as long to make as a cycle lasts: made per snapshot,
// most requests for it would wait for the next one. It is kept until the
// past changes (pastGen).

// Bounds of the reports kept across snapshots. A report of 100,000 apps is
// about 32 MB of JSON and 12 MB of CSV, with its gzip variant beside each.
const (
	maxReportsKept = 4
	// maxReportBytes bounds their plain bodies (the gzip variants are
	// under a twentieth as large): last month's JSON and CSV at 100,000
	// apps fit.
	maxReportBytes = 64 << 20
	// reportSettle is how long after its end a period must be before its
	// report is kept across snapshots: a check's time may lag its
	// cycle's, and a check holds its state up to twice the interval.
	reportSettle = time.Hour
)

// reportCache holds the reports of closed periods made since the past last
// changed. Its answers are made once while the requests for the same one
// wait (availCache).
type reportCache struct {
	mu  sync.Mutex
	gen uint64 // the pastGen of the snapshots c's answers were made from
	c   *availCache
}

// of returns the answers kept for the snapshots of past generation gen,
// nil for a snapshot older than the cache's: its answers would replace
// newer ones.
func (rc *reportCache) of(gen uint64) *availCache {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	switch {
	case rc.c != nil && gen == rc.gen:
		return rc.c
	case rc.c != nil && gen < rc.gen:
		return nil
	}
	rc.gen, rc.c = gen, &availCache{max: maxReportsKept, maxBytes: maxReportBytes}
	return rc.c
}

// reportAnswers is where the answers of q are kept for snapshot s: across
// snapshots for a closed period the retention has not reached, else with
// the snapshot. spill, when not nil, is where those the kept reports have
// no room for go: the snapshot's.
func (m *Monitor) reportAnswers(s *snapshot, q report.Query) (c, spill *availCache) {
	rng := q.Period.In(q.Zone)
	at := s.book.At
	if rng.End.Add(reportSettle).After(at) || rng.Start.Before(at.Add(-m.ledger.Retention())) {
		return &s.avail, nil
	}
	if c := m.reports.of(s.pastGen); c != nil {
		return c, &s.avail
	}
	return &s.avail, nil
}

// pastChanged tells the kept reports that the ledger's past changed. It
// runs under cycleMu, after the change and before the next publish.
func (m *Monitor) pastChanged() { m.pastGen++ }

// windowsKey is the maintenance windows' keys in order: when they differ
// from the last cycle's, Sync marks or unmarks the past.
func windowsKey(ws []ledger.Window) string {
	keys := make([]string, len(ws))
	for i, w := range ws {
		keys[i] = w.Key
	}
	slices.Sort(keys)
	return strings.Join(keys, "\x00")
}
