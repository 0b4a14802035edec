// Package promanswer reads answers of the Prometheus query API's instant
// queries (/api/v1/query) the lean way: of each series it keeps the values
// of the few labels the caller names and the sample's value, with no label
// map, no model.Sample and no float boxed per series.
//
// A combined or fused query of 10,000 apps answers 10,000 series of which
// availmon needs one label (the fused selector's, or the term tag of a
// combined query) and the value; decoding all of them into model.Vector
// cost most of a cycle's CPU.
//
//	ans, err := promanswer.Decode(body, []string{"app"}, func(v [][]byte) int {
//		return index[string(v[0])] // -1 drops the series
//	}, nil)
//
// Decode reads only answers in the shape servers send (an object with
// status, data.resultType "vector" or "scalar" before data.result, samples
// of metric and value); anything else, malformed or merely unusual, is
// refused with ErrUnsupported, and the caller decodes it in full with
// client_golang, which then decides what it means. Whatever Decode accepts,
// client_golang decodes to the same series and values (FuzzDecode checks
// it).
//
// The body is read once, front to back, by a scanner for this one shape
// that checks every byte as encoding/json.Valid would (the parts it passes
// over too), unescapes a string only when it holds escapes, and hands
// route slices of the body itself: nothing is allocated per series. It
// refuses exactly what the decoder before it refused (encoding/json.Valid,
// then json-iterator, which client_golang reads with): FuzzDecodeOracle
// checks it against that decoder, kept in the tests.
package promanswer
