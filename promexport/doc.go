// Package promexport exports availmon's state and its own health as
// Prometheus metrics.
//
// An Exporter is a prometheus.Collector. The availability families
// (availmon_up, availmon_unavailable, availmon_apps, per-location ratios, backend connectivity,
// cycle timings) are computed at collection time from the latest Snapshot as
// const metrics, so the monitor's state never lives in Prometheus objects.
// The request and scrape families are ordinary instruments that the monitor
// feeds as it works. http_requests_total has a collector of its own
// (Requests), apart from the Exporter, as the program around the monitor
// often has a family of that name. The package never touches the default
// registry:
//
//	exp := promexport.New(promexport.Options{Snapshot: current, Interval: interval})
//	reg := prometheus.NewRegistry()
//	reg.MustRegister(exp)
//
// A server that encodes the snapshot's families once per snapshot calls
// EncodeSnapshot, which writes availmon_up and availmon_unavailable (a
// series per app) straight from the Snapshot in the text formats, with the
// bytes expfmt would give.
//
// Label values come from configuration (app, location and backend names) or
// from small fixed sets (route patterns, HTTP methods and status codes), never
// from raw request input, so cardinality is bounded by the configuration.
package promexport
