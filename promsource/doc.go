// Package promsource is an availmon.Source that reads availability from a
// server that speaks the Prometheus HTTP query API (Prometheus, Thanos,
// Mimir, Cortex, VictoriaMetrics). An app is up when its PromQL Metric
// returns samples that are all non-zero, down when one is 0, and
// unavailable when there is none, a NaN or an error.
//
//	src, err := promsource.New(promsource.Options{Name: "main", URL: "http://prometheus:9090"})
//	if err != nil { ... }
//	m, err := availmon.New(availmon.Options{
//		Locations: locations,
//		Apps:      apps, // each with a Metric such as `up{job="checkout"}`
//		Backends:  []availmon.Backend{{Name: "main", URL: "http://prometheus:9090", Source: src, BatchSize: promsource.BatchSize}},
//		Backfill:  true,
//	})
//
// Besides Check, a Source has every capability availmon defines, through
// its exported interfaces only: it plans its batches so that one call is
// one query, fusing selectors that differ in one label's value
// (availmon.BatchPlanner); it answers discovery rules' queries
// (availmon.InstantQuerier); it tells the past for the backfill, counted on
// the server (availmon.PastSource, availmon.PastAdopter); it reports each
// request (availmon.RequestReporter); and it refuses, at New, an
// expression Prometheus's parser refuses (availmon.AppValidator).
package promsource
