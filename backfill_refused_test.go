package availmon

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/availmon/availmon/timeline"
)

// A question refused for its number of steps (Prometheus's 11,000 points
// per series, as a backend with a lower limit says it) is asked in parts,
// not again whole for ever, and the record is filled as without the
// limit.
func TestBackfillStatesSplitsQuestionsOfTooManySteps(t *testing.T) {
	start, down, truth := threeAppsPast()
	tm, src := pastMonitor(t, t0, truth)
	refused := 0
	src.refuse = func(r PastRange) error {
		if r.End.Sub(r.Start)/r.Step > 3 {
			refused++
			return fmt.Errorf("prometheus main: %w: bad_data: exceeded maximum resolution of 11,000 points per timeseries. "+
				"Try decreasing the query resolution (?step=XX)", ErrPastRefused)
		}
		return nil
	}
	tm.backfillRecord(waitCtx(t))
	if st := tm.bf.status(); st.State != "done" {
		t.Fatalf("state %q after the backfill", st.State)
	}
	if refused == 0 {
		t.Fatal("no question refused: the test tests nothing")
	}
	want := []timeline.Span{{From: start, To: down.From, State: timeline.Up}, down, {From: down.To, To: t0, State: timeline.Up}}
	if diff := cmp.Diff(want, recordOf(tm, "checkout", start, t0)); diff != "" {
		t.Errorf("checkout's record (-want +got):\n%s", diff)
	}
	if n := testutil.ToFloat64(tm.bf.metrics.refused.WithLabelValues("main")); n != 0 {
		t.Errorf("%v questions given up on; their parts answer", n)
	}
}

// A question refused as bad input for another reason is given up on: its
// span stays unknown, the refusal is logged as an error and counted, the
// rest of the record is filled, and the backfill ends without waiting for
// a retry (the clock never moves here).
func TestBackfillStatesGivesUpRefusedQuestion(t *testing.T) {
	start, down, truth := threeAppsPast()
	var log bytes.Buffer
	tm, src := pastMonitor(t, t0, truth, func(o *Options) { o.Logger = slog.New(slog.NewTextHandler(&log, nil)) })
	src.refuse = func(r PastRange) error {
		if r.Window == time.Hour {
			return fmt.Errorf("prometheus main: %w: bad_data: invalid parameter \"query\": 1:1: parse error", ErrPastRefused)
		}
		return nil
	}
	tm.backfillRecord(waitCtx(t))
	if st := tm.bf.status(); st.State != "done" {
		t.Fatalf("state %q after the backfill", st.State)
	}
	if n := testutil.ToFloat64(tm.bf.metrics.refused.WithLabelValues("main")); n == 0 {
		t.Error("no question counted as refused")
	}
	if !strings.Contains(log.String(), `level=ERROR msg="a backend refuses a backfill question as bad input; its span is left unfilled" backend=main question=states`) {
		t.Errorf("no error logged:\n%s", log.String())
	}
	// The outage's day was mixed: its hours were refused, so it stays
	// unknown; the days around it are filled.
	day := down.From.Truncate(24 * time.Hour)
	got := recordOf(tm, "checkout", start, t0)
	if len(got) != 2 || !got[0].To.Equal(day) || !got[1].From.Equal(day.Add(24*time.Hour)) || got[0].State != timeline.Up {
		t.Errorf("checkout's record %+v; want up but the outage's day, unknown", got)
	}
}
