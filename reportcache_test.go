package availmon

import (
	"bytes"
	"net/http"
	"testing"
	"time"

	"github.com/availmon/availmon/internal/backfill"
	"github.com/availmon/availmon/internal/report"
	"github.com/availmon/availmon/timeline"
)

// reportData is the data member of a JSON report's body: the body less its
// meta, which is as of the snapshot.
func reportData(t *testing.T, body []byte) []byte {
	t.Helper()
	i := bytes.LastIndex(body, []byte(`,"meta":`))
	if !bytes.HasPrefix(body, []byte(`{"data":`)) || i < 0 {
		t.Fatalf("not a report envelope: %.80s", body)
	}
	return body[len(`{"data":`):i]
}

// The report of a closed period is made once and served across cycles as
// long as the past is the same: byte for byte the report made afresh from
// the current snapshot, in JSON, CSV and their gzip variants; its CSV's
// ETag outlives the cycle, so a poller gets a 304.
func TestReportKeptAcrossCycles(t *testing.T) {
	tm := reportMonitor(t)
	const target = "/api/reports/2026-10"
	csvTag := do(t, tm.h, http.MethodGet, target+"?format=csv", "", nil).Header().Get("ETag")
	jsonTag := do(t, tm.h, http.MethodGet, target, "", nil).Header().Get("ETag")
	before := tm.snap.Load()
	tm.clock.Set(before.book.At.Add(time.Hour))
	tm.scrape(t)
	s := tm.snap.Load()
	if s.pastGen != before.pastGen {
		t.Fatalf("a cycle with the same maintenance windows and plan changed the past's generation %d → %d", before.pastGen, s.pastGen)
	}
	for _, format := range []report.Format{report.JSON, report.CSV} {
		q, err := report.ParseQuery("2026-10", format.String(), "", tm.cfg.timeZone)
		if err != nil {
			t.Fatal(err)
		}
		made := 0
		kept, _ := tm.reportAnswers(s, q)
		kept.Get("report\x00"+q.Key(), func() availAnswer { made++; return availAnswer{} })
		if made != 0 {
			t.Errorf("%s: the report was made again in the next cycle, with the past unchanged", format)
		}
		fresh := report.Make(s.book, q)
		plain := do(t, tm.h, http.MethodGet, target+"?format="+format.String(), "", nil)
		gz := do(t, tm.h, http.MethodGet, target+"?format="+format.String(), "", http.Header{"Accept-Encoding": {"gzip"}})
		got, gotGz := plain.Body.Bytes(), gunzip(t, gz.Body.Bytes())
		want := fresh.AppendCSV(nil)
		if format == report.JSON {
			got, gotGz, want = reportData(t, got), reportData(t, gotGz), fresh.AppendJSON(nil)
		}
		if !bytes.Equal(got, want) || !bytes.Equal(gotGz, want) {
			t.Errorf("%s: the kept report differs from a fresh one:\n got %.200s\ngzip %.200s\nwant %.200s", format, got, gotGz, want)
		}
	}
	if rec := do(t, tm.h, http.MethodGet, target+"?format=csv", "", http.Header{"If-None-Match": {csvTag}}); rec.Code != http.StatusNotModified {
		t.Errorf("CSV with the last cycle's ETag %s: %d, want 304", csvTag, rec.Code)
	}
	if rec := do(t, tm.h, http.MethodGet, target, "", http.Header{"If-None-Match": {jsonTag}}); rec.Code != http.StatusNotModified {
		t.Errorf("JSON with the last cycle's ETag %s: %d, want 304", jsonTag, rec.Code)
	}
}

// A change of the past (here a reconfiguration that adds an app, which the
// report lists) makes the next cycle's report anew; so does a maintenance
// window, which marks the past, and a backfill (pastChanged).
func TestReportRemadeWhenThePastChanges(t *testing.T) {
	tm, opts := reportMonitorOpts(t)
	const target = "/api/reports/2026-10?format=csv"
	old := do(t, tm.h, http.MethodGet, target, "", nil)
	opts.Apps = append(opts.Apps[:2:2], App{Name: "newcomer", Location: opts.Apps[0].Location, Metric: "up"})
	if _, err := tm.Reconfigure(opts); err != nil {
		t.Fatal(err)
	}
	tm.clock.Set(tm.snap.Load().book.At.Add(time.Hour))
	tm.scrape(t)
	rec := do(t, tm.h, http.MethodGet, target, "", nil)
	if !bytes.Contains(rec.Body.Bytes(), []byte("newcomer")) || bytes.Equal(rec.Body.Bytes(), old.Body.Bytes()) {
		t.Errorf("after a reconfiguration the report is the old one:\n%s", rec.Body.Bytes())
	}
	if again := do(t, tm.h, http.MethodGet, target, "", http.Header{"If-None-Match": {old.Header().Get("ETag")}}); again.Code != http.StatusOK {
		t.Errorf("the old ETag after the past changed: %d, want 200", again.Code)
	}

	// A backfill fills the newcomer's October, unknown so far.
	before := do(t, tm.h, http.MethodGet, target, "", nil).Body.String()
	oct := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	tm.applyStates(&stateJob{names: []string{"newcomer"}}, &backfill.Answers{From: oct, To: oct.AddDate(0, 1, 0),
		Spans: map[int][]timeline.Span{0: {{From: oct, To: oct.AddDate(0, 1, 0), State: timeline.Up}}}})
	if after := do(t, tm.h, http.MethodGet, target, "", nil).Body.String(); after == before {
		t.Errorf("after a backfill of October the report is the old one:\n%s", after)
	}

	// A maintenance window over the 25th marks checkout's outage there.
	before = do(t, tm.h, http.MethodGet, target, "", nil).Body.String()
	opts.Maintenance = []MaintenanceWindow{{App: "checkout", From: time.Date(2026, 10, 25, 0, 0, 0, 0, time.UTC),
		To: time.Date(2026, 10, 26, 0, 0, 0, 0, time.UTC)}}
	if _, err := tm.Reconfigure(opts); err != nil {
		t.Fatal(err)
	}
	gen := tm.snap.Load().pastGen // the reconfiguration's own change
	tm.clock.Set(tm.snap.Load().book.At.Add(time.Hour))
	tm.scrape(t)
	if s := tm.snap.Load(); s.pastGen == gen {
		t.Errorf("a new maintenance window left the past's generation at %d", gen)
	}
	s := tm.snap.Load()
	q, err := report.ParseQuery("2026-10", "csv", "", tm.cfg.timeZone)
	if err != nil {
		t.Fatal(err)
	}
	after := do(t, tm.h, http.MethodGet, target, "", nil).Body.String()
	if want := string(report.Make(s.book, q).AppendCSV(nil)); after != want || after == before {
		t.Errorf("after a maintenance window over the past the report is\n%s\nwant\n%s", after, want)
	}
}

// An open period's report changes with every cycle: it is kept with the
// snapshot only, as are those of periods the retention reaches or that
// ended moments ago. A bad request keeps nothing.
func TestReportKeptOnlyWhenClosed(t *testing.T) {
	tm := reportMonitor(t)
	s := tm.snap.Load()
	for _, tt := range []struct {
		per  string
		kept bool
	}{{"2026-10", true}, {"2026-11", false}, {"2026-10-31", true}, {"2026-11-01", false}, {"2026-Q4", false}} {
		q, err := report.ParseQuery(tt.per, "", "UTC", nil)
		if err != nil {
			t.Fatal(err)
		}
		if c, _ := tm.reportAnswers(s, q); (c != &s.avail) != tt.kept {
			t.Errorf("%s: kept across snapshots %v, want %v", tt.per, !tt.kept, tt.kept)
		}
	}
	for _, bad := range []string{"/api/reports/2026-13", "/api/reports/2026-10?format=xml", "/api/reports/2026-10?tz=Mars/Olympus", "/api/reports/2099"} {
		if rec := do(t, tm.h, http.MethodGet, bad, "", nil); rec.Code != http.StatusBadRequest {
			t.Errorf("GET %s = %d, want 400", bad, rec.Code)
		}
	}
	if c := tm.reports.Of(s.pastGen, maxReportsKept, maxReportBytes); c.Len() != 0 {
		t.Errorf("bad requests left %d reports kept", c.Len())
	}
	if s.avail.Len() != 0 {
		t.Errorf("bad requests left %d answers in the snapshot", s.avail.Len())
	}
}
