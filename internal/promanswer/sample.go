package promanswer

import (
	"strconv"
	"unicode/utf8"

	"github.com/prometheus/common/model"
)

// sample reads {"metric": {...}, "value": [t, "v"]}.
func (d *decoder) sample() bool {
	if d.peek() != '{' {
		return d.fail("sample is not an object")
	}
	d.pos++
	clear(d.values)
	var v float64
	k := keys{known: sampleKeys}
	for i := 0; d.more('}', i); i++ {
		n, ok := d.member(&k)
		if ok {
			switch n {
			case 0:
				ok = d.metric()
			case 1:
				ok = d.pair(&v)
			case 2:
				// A native histogram has no float value: client_golang
				// decodes it, and what a histogram means is its call.
				ok = d.fail("histogram sample")
			default:
				ok = d.skip(4)
			}
		}
		if !ok {
			return false
		}
	}
	if d.bad {
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

// metric keeps the values of the labels asked for, in place in the body
// unless they hold escapes; of a label given twice the last value counts,
// as in the map client_golang fills. The other labels are checked and
// passed over.
func (d *decoder) metric() bool {
	switch d.peek() {
	case 'n':
		return d.literal("null")
	case '{':
	default:
		return d.fail("metric is not an object")
	}
	d.pos++
	for i := 0; d.more('}', i); i++ {
		name, wide, ok := d.key()
		if !ok {
			return false
		}
		if wide && !utf8.Valid(name) {
			// encoding/json would replace the bad bytes.
			return d.fail("label name is not UTF-8")
		}
		if !d.label(name) {
			return false
		}
	}
	return !d.bad
}

// label reads the value of label name.
func (d *decoder) label(name []byte) bool {
	for k, l := range d.labels {
		if string(name) == l {
			v, ok := d.value(&d.bufs[k])
			d.values[k] = v
			return ok
		}
	}
	if d.peek() != '"' {
		return d.fail("label value is not a string")
	}
	return d.skipStr()
}

// pair reads [timestamp, "value"] as model.SamplePair does: the value as
// it is written, escapes and all, is what is parsed.
func (d *decoder) pair(v *float64) bool {
	const notPair = "value is not [timestamp, value]"
	if d.peek() != '[' {
		return d.fail(notPair)
	}
	d.pos++
	if !d.more(']', 0) {
		return d.fail(notPair)
	}
	if !d.timestamp() {
		return false
	}
	if !d.more(']', 1) || d.peek() != '"' {
		return !d.bad && d.fail(notPair)
	}
	t, ok := d.str()
	if !ok {
		return false
	}
	f, err := strconv.ParseFloat(string(t.raw), 64)
	if err != nil {
		return d.fail("sample value: " + err.Error())
	}
	if d.more(']', 2) {
		return d.fail("value has more than two elements")
	}
	*v = f
	return !d.bad
}

// scalar reads [timestamp, "value"] as model.Scalar does: its value is
// unescaped before it is parsed, unlike a sample's.
func (d *decoder) scalar() bool {
	const notPair = "scalar is not [timestamp, value]"
	if d.peek() != '[' {
		return d.fail(notPair)
	}
	d.pos++
	if !d.more(']', 0) {
		return d.fail(notPair)
	}
	if !d.timestamp() {
		return false
	}
	if !d.more(']', 1) {
		return !d.bad && d.fail(notPair)
	}
	s, ok := d.value(&d.strBuf)
	if !ok {
		return false
	}
	if d.more(']', 2) {
		return d.fail("scalar has more than two elements")
	}
	if d.bad {
		return false
	}
	f, err := strconv.ParseFloat(string(s), 64)
	if err != nil {
		return d.fail("scalar value: " + err.Error())
	}
	clear(d.values)
	if r := d.route(d.values); r >= 0 {
		d.ans.Series = append(d.ans.Series, Series{Route: r, Value: f})
	}
	return true
}

// timestamp reads a sample's time, refusing what model.Time refuses; its
// value is not needed.
func (d *decoder) timestamp() bool {
	if c := d.peek(); c != '-' && (c < '0' || c > '9') {
		return d.fail("timestamp is not a number")
	}
	tok, ok := d.num()
	if !ok {
		return false
	}
	if plainTime(tok) {
		return true
	}
	var t model.Time
	if err := t.UnmarshalJSON(tok); err != nil {
		return d.fail("timestamp: " + err.Error())
	}
	return true
}

// plainTime reports whether tok, a JSON number, is one model.Time parses
// without fail: no exponent, and at most 18 digits before the fraction
// (as servers write times).
func plainTime(tok []byte) bool {
	whole, dot := 0, false
	for _, c := range tok {
		switch {
		case c == 'e' || c == 'E':
			return false
		case c == '.':
			dot = true
		case c != '-' && !dot:
			whole++
		}
	}
	return whole <= 18
}
