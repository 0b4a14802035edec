package availmon

import (
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"

	"github.com/availmon/availmon/internal/cachedbody"
	"github.com/availmon/availmon/internal/report"
	"github.com/availmon/availmon/period"
	"github.com/go-chi/chi/v5"
)

// GET /api/reports/{period}: the report of a calendar period
// (internal/report) as JSON or CSV, made once per snapshot and query and
// kept with the snapshot's /api/availability answers.

var reportParams = []string{"format", "tz"}

const reportAccepted = "the period is 2026-11-25, 2026-W47, 2026-11, 2026-Q4 or 2026; " +
	"accepted query parameters: format (json, csv; default json, or csv when Accept names text/csv), " +
	"tz (an IANA zone such as Europe/Berlin; default reports.time_zone)"

func (m *Monitor) getReport(w http.ResponseWriter, r *http.Request) {
	s := m.snap.Load()
	q, err := m.parseReportQuery(r, s)
	if err != nil {
		m.writeError(w, r, err)
		return
	}
	a := s.avail.get("report\x00"+q.Key(), func() availAnswer {
		rep := report.Make(s.book, q)
		if q.Format == report.CSV {
			return availAnswer{body: cachedbody.New(trimmed(rep.AppendCSV(nil))), count: len(rep.Rows)}
		}
		return availAnswer{body: cachedbody.New(trimmed(rep.AppendJSON([]byte(`{"data":`)))), count: len(rep.Rows)}
	})
	w.Header().Add("Vary", "Accept")
	if q.Format == report.CSV {
		w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="availmon-report-%s.csv"`, q.Period))
		a.body.Serve(w, r, nil, "text/csv; charset=utf-8; header=present")
		return
	}
	m.writeEncoded(w, r, a.body, countMetaJSON{Count: a.count, Timestamp: jsonTime(s.made)})
}

// parseReportQuery reads the period of the path, ?format= (or Accept) and
// ?tz=.
func (m *Monitor) parseReportQuery(r *http.Request, s *snapshot) (report.Query, error) {
	q := r.URL.Query()
	vals := make(map[string]string, 2)
	for _, k := range reportParams {
		switch vs := q[k]; {
		case len(vs) > 1:
			return report.Query{}, validationError("invalid "+k, fmt.Sprintf("%s is given %d times", k, len(vs)), reportAccepted)
		case len(vs) == 1 && vs[0] == "":
			return report.Query{}, validationError("invalid "+k, k+" is empty", reportAccepted)
		case len(vs) == 1:
			vals[k] = vs[0]
		}
	}
	if vals["format"] == "" && acceptsCSV(r.Header.Values("Accept")) {
		vals["format"] = "csv"
	}
	rq, err := report.ParseQuery(chi.URLParam(r, "period"), vals["format"], vals["tz"], m.cfg.timeZone)
	if err == nil && rq.Format == report.Table {
		err = fmt.Errorf("%w: the table is for the terminal (availmon report)", report.ErrFormat)
	}
	if err == nil {
		err = rq.Begun(s.book.At)
	}
	if err != nil {
		return rq, validationError(reportErrorMessage(err), err.Error(), reportAccepted)
	}
	return rq, nil
}

func reportErrorMessage(err error) string {
	switch {
	case errors.Is(err, report.ErrFormat):
		return "invalid format"
	case errors.Is(err, period.ErrTimeZone):
		return "invalid tz"
	}
	return "invalid period"
}

// acceptsCSV tells whether an Accept header names text/csv.
func acceptsCSV(headers []string) bool {
	for _, h := range headers {
		for part := range strings.SplitSeq(h, ",") {
			if mt, _, err := mime.ParseMediaType(strings.TrimSpace(part)); err == nil && mt == "text/csv" {
				return true
			}
		}
	}
	return false
}
