package availmon_test

import (
	"strings"
	"testing"
	"time"

	"github.com/availmon/availmon/internal/promtest"
)

// A backfill question the backend refuses as bad input (400 bad_data
// about a parameter of the question, 422 of its evaluation) is refused
// again whenever it is asked: the backfill gives up on its span with a
// logged error and availmon_backfill_questions_refused_total, and ends,
// without waiting for a retry the monitor's clock never reaches.
func TestBackfillGivesUpOnRefusedQuestions(t *testing.T) {
	t.Parallel()
	now := time.Now()
	srv, _, _ := startDemoPast(t, now.Truncate(time.Minute), 5*time.Hour)
	for _, tc := range []struct {
		fault promtest.Fault
		// root: the refusal reaches the monitor (a parameter of the
		// question), where promsource does not leave out the expression
		// it blames, one by one, as it does for the expression's own.
		root bool
	}{
		{promtest.BadData(`invalid parameter "end": end timestamp must not be before start time`), true},
		{promtest.BadData("exceeded maximum resolution of 11,000 points per timeseries. Try decreasing the query resolution (?step=XX)"), false},
		{promtest.Execution("query processing would load too many samples into memory in query execution"), false},
	} {
		t.Run(tc.fault.String(), func(t *testing.T) {
			proxy := promtest.NewFaultProxy(t, srv.URL())
			proxy.Inject(promtest.Rule{Fault: tc.fault, Range: true})
			b := startRetryingBackfill(t, proxy.URL(), now)
			b.waitFor("the record's backfill done", func() bool {
				return strings.Contains(b.logs(), `msg="backfill of the record of availability done"`)
			})
			if !strings.Contains(b.logs(), `msg="backfill done"`) {
				t.Errorf("no backfill done of the minute history:\n%s", b.logs())
			}
			if n := b.pending(); n != 0 {
				t.Errorf("%v queries pending after the backfill ended", n)
			}
			if n := b.failures(); n != 0 {
				t.Errorf("%v failures counted; a refusal is not a failure to ask again", n)
			}
			refused := b.metric("availmon_backfill_questions_refused_total")
			logged := strings.Contains(b.logs(), `level=ERROR msg="a backend refuses a backfill question as bad input; its span is left unfilled" backend=main`)
			if tc.root && (refused == 0 || !logged) {
				t.Errorf("%v questions counted as refused, logged %v; want some, logged:\n%s", refused, logged, b.logs())
			}
			if !tc.root {
				checkRefusedExpressionsWarned(t, b.logs())
			}
			if proxy.Faulted() == 0 {
				t.Error("no question refused")
			}
		})
	}
}

// checkRefusedExpressionsWarned fails the test unless the Prometheus source
// warned of the expressions it left out of the backfill, each once however
// many questions asked it: their apps' past stays unknown.
func checkRefusedExpressionsWarned(t *testing.T, logs string) {
	t.Helper()
	const msg = `level=WARN msg="the backend refuses an expression over a range; its apps' past stays unknown" backend=main expression=`
	seen := map[string]int{}
	for _, line := range strings.Split(logs, "\n") {
		if rest, ok := strings.CutPrefix(line[strings.Index(line, " ")+1:], msg); ok {
			expr, _, _ := strings.Cut(rest, " err=")
			seen[expr]++
		}
	}
	if len(seen) == 0 {
		t.Errorf("no expression left out was warned of:\n%s", logs)
	}
	for expr, n := range seen {
		if n != 1 {
			t.Errorf("%s warned of %d times, want once", expr, n)
		}
	}
}
