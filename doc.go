// Package availmon tells which applications are up, per geographic location,
// from metrics you already keep in Prometheus (or from any other Source).
//
// A Monitor is given apps, the locations they belong to and where their
// availability comes from. Run checks them every interval; Handler serves the
// JSON API (applications, locations, configuration, status, history and a
// 24h summary) and can be mounted under any router:
//
//	m, err := availmon.New(availmon.Options{
//		Locations: []availmon.Location{{Name: "Tel Aviv", Latitude: 32.0853, Longitude: 34.7818}},
//		Apps:      []availmon.App{{Name: "checkout", Location: "Tel Aviv"}},
//		Source: availmon.SourceFunc(func(ctx context.Context, app availmon.App) availmon.Result {
//			return availmon.Result{Status: availmon.StatusUp}
//		}),
//	})
//	if err != nil { ... }
//	go m.Run(ctx)
//	mux.Handle("/availability/", http.StripPrefix("/availability", m.Handler()))
//
// An app is up, down or unavailable; unavailable means its state could not be
// determined and is never counted as down. Readers never wait for a check
// cycle: each cycle publishes an immutable snapshot that handlers read.
//
// A Source needs only Check. The Prometheus source (package promsource) and
// the HTTP prober (package httpprobe) are Sources like any other: what they
// can do besides, batching their own calls, telling the past for the
// backfill, answering the queries of discovery rules, reporting each of
// their requests and refusing bad apps at New, any Source gets by
// implementing the interfaces of the same names (BatchPlanner, PastSource,
// InstantQuerier, RequestReporter, AppValidator). An app carries what its
// source needs in App.Settings.
//
// The set of apps can change while the monitor runs: Reconfigure swaps in a
// new set between two cycles (apps keep their state by name), and
// Options.Discover makes apps of the series of PromQL queries, one query per
// rule per cycle.
package availmon
