package promanswer

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	jsoniter "github.com/json-iterator/go"
	"github.com/prometheus/common/model"
)

// decodeJsoniter is Decode as it was before it scanned the bytes itself:
// encoding/json.Valid over the whole body, then json-iterator's Iterator.
// It is the oracle of FuzzDecodeOracle and the baseline of
// BenchmarkDecodeJsoniter. Its reasons are Decode's, except that an error
// of json-iterator's own (a number its Skip cannot read) is tagged with
// jsoniterTag.
func decodeJsoniter(body []byte, labels []string, route func(values [][]byte) int, buf []Series) (Answer, error) {
	// The whole body is checked first: the iterator below skips what it
	// does not need, and skipping is laxer than encoding/json (leading
	// zeros, control characters after an escape), which decides what a
	// malformed answer means.
	if !json.Valid(body) {
		return Answer{}, unsupported("not valid JSON")
	}
	iter := jsoniter.ConfigDefault.BorrowIterator(body)
	defer jsoniter.ConfigDefault.ReturnIterator(iter)
	d := &jdecoder{iter: iter, labels: labels, route: route,
		values: make([][]byte, len(labels)), bufs: make([][]byte, len(labels))}
	d.ans.Series = buf[:0]
	d.envelope()
	if d.err == nil && iter.Error != nil {
		d.fail(iter.Error.Error())
	}
	if d.err != nil {
		return Answer{}, d.err
	}
	return d.ans, nil
}

// jdecoder is one Decode call.
type jdecoder struct {
	iter   *jsoniter.Iterator
	labels []string
	route  func([][]byte) int
	values [][]byte // the current series' label values
	bufs   [][]byte // where each label's value is kept, reused
	raw    []byte   // scratch for one token
	ans    Answer
	err    error
}

// fail records the first reason the body is refused and returns false,
// which stops the iterator's callbacks.
func (d *jdecoder) fail(why string) bool {
	if d.err == nil {
		if d.iter.Error != nil {
			// json-iterator failed: what it reads after is not the text.
			why = jsoniterTag + why
		}
		d.err = unsupported(why)
	}
	return false
}

// jkeys tracks which known jkeys an object had: client_golang's
// encoding/json takes the last of duplicated jkeys and matches jkeys without
// regard to case, so a duplicate or a case variant is refused here rather
// than read differently.
type jkeys struct {
	known []string
	seen  uint8
}

// check reports whether key is known and new; ok is false (and d failed)
// for a duplicate or a case variant of a known key.
func (k *jkeys) check(d *jdecoder, key string) (idx int, ok bool) {
	for i, name := range k.known {
		if key == name {
			if k.seen&(1<<i) != 0 {
				return -1, d.fail("duplicated key " + name)
			}
			k.seen |= 1 << i
			return i, true
		}
		if strings.EqualFold(key, name) {
			return -1, d.fail("key " + name + " in another case")
		}
	}
	return -1, true
}

func (k *jkeys) has(i int) bool { return k.seen&(1<<i) != 0 }

var (
	jEnvelopeKeys = []string{"status", "errorType", "error", "warnings", "infos", "data"}
	jDataKeys     = []string{"resultType", "result"}
	jSampleKeys   = []string{"metric", "value", "histogram"}
)

func (d *jdecoder) envelope() {
	if d.iter.WhatIsNext() != jsoniter.ObjectValue {
		d.fail("answer is not an object")
		return
	}
	k := jkeys{known: jEnvelopeKeys}
	d.iter.ReadMapCB(func(_ *jsoniter.Iterator, key string) bool {
		i, ok := k.check(d, key)
		if !ok {
			return false
		}
		switch i {
		case 0:
			return d.str(&d.ans.Status)
		case 1:
			return d.str(&d.ans.ErrorType)
		case 2:
			return d.str(&d.ans.Error)
		case 3:
			return d.strs(&d.ans.Warnings)
		case 4:
			var infos []string
			return d.strs(&infos)
		case 5:
			return d.data()
		}
		d.iter.Skip()
		return true
	})
}

// data reads {"resultType": ..., "result": ...}; null is no data, as for
// client_golang.
func (d *jdecoder) data() bool {
	switch d.iter.WhatIsNext() {
	case jsoniter.NilValue:
		d.iter.Skip()
		return true
	case jsoniter.ObjectValue:
	default:
		return d.fail("data is not an object")
	}
	k := jkeys{known: jDataKeys}
	d.iter.ReadMapCB(func(_ *jsoniter.Iterator, key string) bool {
		i, ok := k.check(d, key)
		if !ok {
			return false
		}
		switch i {
		case 0:
			return d.resultType()
		case 1:
			return d.result()
		}
		d.iter.Skip()
		return true
	})
	if d.err == nil && !k.has(1) {
		return d.fail("data without result")
	}
	return d.err == nil
}

func (d *jdecoder) resultType() bool {
	var t string
	if !d.str(&t) {
		return false
	}
	switch t {
	case "vector":
		d.ans.Type = model.ValVector
	case "scalar":
		d.ans.Type = model.ValScalar
	default:
		return d.fail("result type " + t)
	}
	return true
}

// result reads the series; resultType must come first (every server
// sends it first), or the series could not be read as they stream by.
func (d *jdecoder) result() bool {
	switch d.ans.Type {
	case model.ValVector:
		if d.iter.WhatIsNext() == jsoniter.NilValue {
			d.iter.Skip()
			return true
		}
		if d.iter.WhatIsNext() != jsoniter.ArrayValue {
			return d.fail("vector result is not an array")
		}
		return d.iter.ReadArrayCB(func(*jsoniter.Iterator) bool { return d.sample() }) && d.err == nil
	case model.ValScalar:
		return d.scalar()
	}
	return d.fail("result before resultType")
}

// sample reads {"metric": {...}, "value": [t, "v"]}.
func (d *jdecoder) sample() bool {
	if d.iter.WhatIsNext() != jsoniter.ObjectValue {
		return d.fail("sample is not an object")
	}
	clear(d.values)
	var v float64
	k := jkeys{known: jSampleKeys}
	d.iter.ReadMapCB(func(_ *jsoniter.Iterator, key string) bool {
		i, ok := k.check(d, key)
		if !ok {
			return false
		}
		switch i {
		case 0:
			return d.metric()
		case 1:
			return d.pair(&v)
		case 2:
			// A native histogram has no float value: client_golang
			// decodes it, and what a histogram means is its call.
			return d.fail("histogram sample")
		}
		d.iter.Skip()
		return true
	})
	if d.err != nil {
		return false
	}
	if !k.has(1) {
		// client_golang would make it a 0, which would read as down.
		return d.fail("sample without value")
	}
	if r := d.route(d.values); r >= 0 {
		d.ans.Series = append(d.ans.Series, Series{Route: r, Value: v})
	}
	return true
}

// metric keeps the values of the labels asked for; of a label given twice
// the last value counts, as in the map client_golang fills.
func (d *jdecoder) metric() bool {
	switch d.iter.WhatIsNext() {
	case jsoniter.NilValue:
		d.iter.Skip()
		return true
	case jsoniter.ObjectValue:
	default:
		return d.fail("metric is not an object")
	}
	d.iter.ReadMapCB(func(_ *jsoniter.Iterator, name string) bool {
		if !utf8.ValidString(name) {
			// encoding/json would replace the bad bytes.
			return d.fail("label name is not UTF-8")
		}
		for k, l := range d.labels {
			if name == l {
				v, ok := d.strBytes(d.bufs[k])
				if !ok {
					return false
				}
				d.bufs[k], d.values[k] = v.buf, v.text
				return true
			}
		}
		if d.iter.WhatIsNext() != jsoniter.StringValue {
			return d.fail("label value is not a string")
		}
		d.iter.Skip()
		return true
	})
	return d.err == nil
}

// pair reads [timestamp, "value"] as model.SamplePair does: the same
// methods parse both tokens.
func (d *jdecoder) pair(v *float64) bool {
	if d.iter.WhatIsNext() != jsoniter.ArrayValue || !d.iter.ReadArray() {
		return d.fail("value is not [timestamp, value]")
	}
	if d.iter.WhatIsNext() != jsoniter.NumberValue {
		return d.fail("timestamp is not a number")
	}
	d.raw = d.capture(d.raw)
	var t model.Time
	if err := t.UnmarshalJSON(d.raw); err != nil {
		return d.fail("timestamp: " + err.Error())
	}
	if !d.iter.ReadArray() || d.iter.WhatIsNext() != jsoniter.StringValue {
		return d.fail("value is not [timestamp, value]")
	}
	d.raw = d.capture(d.raw)
	var sv model.SampleValue
	if err := sv.UnmarshalJSON(d.raw); err != nil {
		return d.fail("sample value: " + err.Error())
	}
	if d.iter.ReadArray() {
		return d.fail("value has more than two elements")
	}
	*v = float64(sv)
	return true
}

// scalar reads [timestamp, "value"] as model.Scalar does: its value is
// unquoted before it is parsed, unlike a sample's.
func (d *jdecoder) scalar() bool {
	if d.iter.WhatIsNext() != jsoniter.ArrayValue || !d.iter.ReadArray() {
		return d.fail("scalar is not [timestamp, value]")
	}
	if d.iter.WhatIsNext() != jsoniter.NumberValue {
		return d.fail("timestamp is not a number")
	}
	d.raw = d.capture(d.raw)
	var t model.Time
	if err := t.UnmarshalJSON(d.raw); err != nil {
		return d.fail("timestamp: " + err.Error())
	}
	var s string
	if !d.iter.ReadArray() || !d.str(&s) {
		return d.fail("scalar is not [timestamp, value]")
	}
	if d.iter.ReadArray() {
		return d.fail("scalar has more than two elements")
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return d.fail("scalar value: " + err.Error())
	}
	clear(d.values)
	if r := d.route(d.values); r >= 0 {
		d.ans.Series = append(d.ans.Series, Series{Route: r, Value: f})
	}
	return true
}

// text is a string read into buf: text is buf's content between the
// quotes, or the unescaped string.
type jtext struct {
	buf, text []byte
}

// strBytes reads a string token as encoding/json would decode it, reusing
// buf: most label values need no unescaping and are used in place.
func (d *jdecoder) strBytes(buf []byte) (jtext, bool) {
	if d.iter.WhatIsNext() != jsoniter.StringValue {
		return jtext{buf: buf}, d.fail("not a string")
	}
	raw := d.capture(buf)
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return jtext{buf: raw, text: inner}, true
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return jtext{buf: raw}, d.fail("string: " + err.Error())
	}
	raw = append(raw[:0], s...)
	return jtext{buf: raw, text: raw}, true
}

// capture reads the next token and returns it as it is written, in buf.
func (d *jdecoder) capture(buf []byte) []byte {
	if buf == nil {
		// The iterator takes a nil buffer for "not capturing".
		buf = make([]byte, 0, 64)
	}
	return d.iter.SkipAndAppendBytes(buf[:0])
}

func (d *jdecoder) str(dst *string) bool {
	t, ok := d.strBytes(d.raw)
	d.raw = t.buf
	if ok {
		*dst = string(t.text)
	}
	return ok
}

// strs reads an array of strings, or null.
func (d *jdecoder) strs(dst *[]string) bool {
	switch d.iter.WhatIsNext() {
	case jsoniter.NilValue:
		d.iter.Skip()
		*dst = nil
		return true
	case jsoniter.ArrayValue:
	default:
		return d.fail("not an array of strings")
	}
	*dst = []string{}
	return d.iter.ReadArrayCB(func(*jsoniter.Iterator) bool {
		var s string
		if !d.str(&s) {
			return false
		}
		*dst = append(*dst, s)
		return true
	}) && d.err == nil
}

const jsoniterTag = "json-iterator: "
