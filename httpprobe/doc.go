// Package httpprobe is an availmon.Source that checks apps by requesting a
// URL directly, for apps that have no metric to read.
//
// An app carries its Probe as its Settings, on a backend whose Source is a
// *Source:
//
//	src, err := httpprobe.New(httpprobe.Options{MaxParallel: 32})
//	if err != nil { ... }
//	m, err := availmon.New(availmon.Options{
//		Locations: []availmon.Location{{Name: "Tel Aviv"}},
//		Apps: []availmon.App{{Name: "home", Location: "Tel Aviv",
//			Settings: &httpprobe.Probe{URL: "https://example.com/healthz"}}},
//		Backends: []availmon.Backend{{Name: "http", Source: src, BatchSize: 1}},
//	})
//
// The app's `metric` is then the probe as text, "GET
// https://example.com/healthz". The Source validates every app's Probe
// when the Monitor is made (availmon.AppValidator).
package httpprobe
