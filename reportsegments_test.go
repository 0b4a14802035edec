package availmon

import (
	"bytes"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/availmon/availmon/internal/cachedbody"
	"github.com/availmon/availmon/internal/report"
)

// A report's answer written in segments serves the bytes, length and ETag
// of the report made in one piece.
func TestReportAnswerSegmentsServeTheWhole(t *testing.T) {
	m, _ := largeMonitor(t, 5000, 10, 2)
	s := m.snap.Load()
	for _, f := range []report.Format{report.JSON, report.CSV} {
		q := monthQuery(t, f)
		rep := report.Make(s.book, q)
		want := rep.AppendCSV(nil)
		if f == report.JSON {
			want = rep.AppendJSON([]byte(`{"data":`))
		}
		a := reportAnswer(rep, f, s.made)
		if a.body.Len() <= 2*cachedbody.DefaultSegmentSize {
			t.Fatalf("%s: %d bytes, want several segments", f, a.body.Len())
		}
		w := httptest.NewRecorder()
		a.body.Serve(w, httptest.NewRequest("GET", "/", nil), nil, "text/plain")
		if !bytes.Equal(w.Body.Bytes(), want) {
			t.Errorf("%s: the segments serve %d bytes unlike the report's %d", f, w.Body.Len(), len(want))
		}
		if got := w.Header().Get("Content-Length"); got != strconv.Itoa(len(want)) {
			t.Errorf("%s: Content-Length %s, want %d", f, got, len(want))
		}
		if got, wantTag := w.Header().Get("ETag"), cachedbody.New(want).ETag(nil, false); got != wantTag {
			t.Errorf("%s: ETag %s, want %s", f, got, wantTag)
		}
	}
}

// monthQuery is the query of November 2026's report in format f, in UTC:
// the month the large monitors' checks fall in.
func monthQuery(t *testing.T, f report.Format) report.Query {
	t.Helper()
	q, err := report.ParseQuery("2026-11", f.String(), "", time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	return q
}
