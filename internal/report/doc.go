// Package report makes the availability report of a calendar period: per
// service, location and app, the figures an operator sends to a customer
// or a manager each month, from a ledger.Book. The server answers
// GET /api/reports/{period} with it, and `availmon report` prints it from a
// state directory without a server.
//
//	q, err := report.ParseQuery("2026-11", "csv", "Europe/Berlin", time.UTC)
//	if err == nil {
//		err = q.Begun(book.At)
//	}
//	r := report.Make(book, q)
//	body := r.AppendCSV(nil)
//
// A report's rows have exactly the figures of /api/availability?period=
// for the same period and zone (the same ledger.Book queries), and add the
// outages' longest and mean time to recovery.
package report
