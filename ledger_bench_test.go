package availmon

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/availmon/availmon/internal/answercache"
	"github.com/availmon/availmon/timeline"
)

// ledgerFleet is a monitor of apps apps in 100 locations whose ledger holds
// days of history before t0: every app up, and 1% of them down ten minutes
// a day.
func ledgerFleet(tb testing.TB, apps, days int) *Monitor { return outageFleet(tb, apps, days, 0) }

// outageFleet is ledgerFleet with every app down ten minutes perDay times a
// day when perDay > 0.
func outageFleet(tb testing.TB, apps, days, perDay int) *Monitor {
	tb.Helper()
	m, _ := largeMonitor(tb, apps, 100, 0)
	m.cycleMu.Lock()
	defer m.cycleMu.Unlock()
	hold := 25 * time.Hour
	for d := days; d > 0; d-- {
		day := t0.Add(-time.Duration(d) * 24 * time.Hour)
		for i := range apps {
			m.ledger.Check(i, day, timeline.Up, hold, false)
			for k := 1; k <= perDay; k++ {
				at := day.Add(time.Duration(k) * 24 * time.Hour / time.Duration(perDay+1))
				m.ledger.Check(i, at, timeline.Down, hold, false)
				m.ledger.Check(i, at.Add(10*time.Minute), timeline.Up, hold, false)
			}
			if perDay == 0 && i%100 == 0 {
				m.ledger.Check(i, day.Add(12*time.Hour), timeline.Down, hold, false)
				m.ledger.Check(i, day.Add(12*time.Hour+10*time.Minute), timeline.Up, hold, false)
			}
		}
		m.ledger.EndCycle(day.Add(13*time.Hour), hold, nil, nil)
	}
	for i := range apps {
		m.ledger.Check(i, t0, timeline.Up, hold, false)
	}
	m.ledger.EndCycle(t0, hold, nil, nil)
	m.publish(t0, m.events.cursor())
	return m
}

// One op: GET /api/availability?window=90d&by=app at 10,000 apps with 90
// days of history, made afresh (the snapshot's cache emptied first).
func BenchmarkAvailability90d10k(b *testing.B) { benchAvailability90d(b, ledgerFleet(b, 10_000, 90)) }

// The same when every app had 10 outages a day for the 90 days.
func BenchmarkAvailability90d10kWorst(b *testing.B) {
	benchAvailability90d(b, outageFleet(b, 10_000, 90, 10))
}

func benchAvailability90d(b *testing.B, m *Monitor) {
	h := m.Handler()
	req := httptest.NewRequest(http.MethodGet, "/api/availability?window=90d&by=app", nil)
	w := &discardWriter{h: http.Header{}}
	n := 0
	for b.Loop() {
		n++
		s := m.snap.Load()
		s.avail = answercache.Cache[availAnswer]{}
		h.ServeHTTP(w, req)
		if w.code != http.StatusOK {
			b.Fatalf("status %d", w.code)
		}
	}
	b.ReportMetric(float64(w.n)/float64(n), "bytes/answer")
}

// One op: the same request answered from the snapshot's cache.
func BenchmarkAvailability90d10kCached(b *testing.B) {
	m := ledgerFleet(b, 10_000, 90)
	h := m.Handler()
	req := httptest.NewRequest(http.MethodGet, "/api/availability?window=90d&by=app", nil)
	w := &discardWriter{h: http.Header{}}
	for b.Loop() {
		h.ServeHTTP(w, req)
	}
}

// The fleet's figures are what the history says: 1% of the apps down ten
// minutes a day for 90 days.
func TestLedgerFleetFigures(t *testing.T) {
	m := ledgerFleet(t, 200, 90)
	tm := &testMonitor{Monitor: m, h: m.Handler()}
	_, apps := items(t, tm, "window=90d")
	if a := apps["app-00100"]; a["down_seconds"] != 90*600.0 || a["outages"] != 90.0 || a["coverage"] != 100.0 {
		t.Errorf("app-00100: %v", a)
	}
	if a := apps["app-00101"]; a["down_seconds"] != 0.0 || a["up_seconds"] != 90*86400.0 {
		t.Errorf("app-00101: %v", a)
	}
}
