package promanswer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/prometheus/common/model"
)

// ErrUnsupported is the error of a body Decode does not read: decode it in
// full instead, which tells what it means (an error for a malformed body, a
// matrix, an unusual but valid shape).
var ErrUnsupported = errors.New("promanswer: not an answer the lean decoder reads")

// Series is one series of an answer as Decode keeps it.
type Series struct {
	Route int // what the route function said of the series' labels
	Value float64
}

// Answer is what Decode keeps of an answer.
type Answer struct {
	Status    string
	ErrorType string
	Error     string
	Warnings  []string
	// Type is data.resultType: model.ValVector or model.ValScalar, or
	// model.ValNone when the answer has no data.
	Type model.ValueType
	// Series are the routed series in the order of the answer; a scalar is
	// one series without labels.
	Series []Series
}

// Decode reads body, an answer of /api/v1/query. For each series it hands
// route the values of labels (in that order; empty when the series lacks
// the label: the slices are valid only during the call) and keeps the
// series with the route it returns, dropping it when that is negative.
// Series are appended to buf[:0], so that a caller can reuse one buffer.
//
// Any error wraps ErrUnsupported: the body is then to be decoded in full.
func Decode(body []byte, labels []string, route func(values [][]byte) int, buf []Series) (Answer, error) {
	d := &decoder{scanner: scanner{buf: body}, labels: labels, route: route,
		values: make([][]byte, len(labels)), bufs: make([][]byte, len(labels))}
	d.ans.Series = buf[:0]
	ok := d.envelope()
	switch {
	case d.bad, !ok && d.err == nil: // the second is a stop with no reason: never accepted
		return Answer{}, unsupported("not valid JSON")
	case d.err != nil && !json.Valid(body):
		// The scan stops at the first thing it does not read, before the
		// rest of the body: a malformed body is refused as malformed
		// wherever its fault is, as when the whole was validated first.
		return Answer{}, unsupported("not valid JSON")
	case d.odd != nil:
		// Found before any other reason, as json-iterator failed first.
		return Answer{}, unsupported(fmt.Sprintf("number %.40s is beyond json-iterator's range", d.odd))
	case d.err != nil:
		return Answer{}, d.err
	}
	return d.ans, nil
}

func unsupported(why string) error { return fmt.Errorf("%w: %s", ErrUnsupported, why) }

// decoder is one Decode call. The answer is read in one pass over its
// bytes, which checks them as it goes: what it needs is unescaped only
// when it holds escapes, what it does not need is checked and passed over.
type decoder struct {
	scanner
	labels []string
	route  func([][]byte) int
	values [][]byte // the current series' label values
	bufs   [][]byte // where each label's value is unescaped, reused
	keyBuf []byte   // where a key is unescaped, reused
	strBuf []byte   // where another string is unescaped, reused
	ans    Answer
	err    error // why a valid text is refused, first found
}

// fail records the first reason the body is refused and returns false.
func (d *decoder) fail(why string) bool {
	if d.err == nil {
		d.err = unsupported(why)
	}
	return false
}

// keys tracks which known keys an object had: client_golang's
// encoding/json takes the last of duplicated keys and matches keys without
// regard to case, so a duplicate or a case variant is refused here rather
// than read differently.
type keys struct {
	known []string
	seen  uint8
}

// check reports whether key is known and new; ok is false (and d failed)
// for a duplicate or a case variant of a known key.
func (k *keys) check(d *decoder, key []byte) (idx int, ok bool) {
	for i, name := range k.known {
		if string(key) == name {
			if k.seen&(1<<i) != 0 {
				return -1, d.fail("duplicated key " + name)
			}
			k.seen |= 1 << i
			return i, true
		}
		if bytes.EqualFold(key, []byte(name)) {
			return -1, d.fail("key " + name + " in another case")
		}
	}
	return -1, true
}

func (k *keys) has(i int) bool { return k.seen&(1<<i) != 0 }

var (
	envelopeKeys = []string{"status", "errorType", "error", "warnings", "infos", "data"}
	dataKeys     = []string{"resultType", "result"}
	sampleKeys   = []string{"metric", "value", "histogram"}
)

// key reads an object's key, unescaped as json-iterator does (see
// appendKey), and the colon after it; wide tells whether the key holds a
// byte beyond ASCII (escapes make none that is not UTF-8).
func (d *decoder) key() (key []byte, wide, ok bool) {
	if d.peek() != '"' {
		return nil, false, d.invalid()
	}
	t, ok := d.str()
	if !ok || !d.colon() {
		return nil, false, false
	}
	if !t.esc {
		return t.raw, t.wide, true
	}
	d.keyBuf = appendKey(d.keyBuf[:0], t.raw)
	return d.keyBuf, t.wide, true
}

// member reads the key of the next member of an object with known keys,
// as k checks it.
func (d *decoder) member(k *keys) (int, bool) {
	key, _, ok := d.key()
	if !ok {
		return -1, false
	}
	return k.check(d, key)
}

func (d *decoder) envelope() bool {
	if d.peek() != '{' {
		return d.fail("answer is not an object")
	}
	d.pos++
	k := keys{known: envelopeKeys}
	for i := 0; d.more('}', i); i++ {
		n, ok := d.member(&k)
		if ok {
			switch n {
			case 0:
				ok = d.text(&d.ans.Status)
			case 1:
				ok = d.text(&d.ans.ErrorType)
			case 2:
				ok = d.text(&d.ans.Error)
			case 3:
				ok = d.texts(&d.ans.Warnings)
			case 4:
				ok = d.texts(nil) // infos: nothing availmon reports
			case 5:
				ok = d.data()
			default:
				ok = d.skip(1)
			}
		}
		if !ok {
			return false
		}
	}
	if d.bad {
		return false
	}
	if d.peek(); d.pos != len(d.buf) {
		return d.invalid()
	}
	return true
}

// data reads {"resultType": ..., "result": ...}; null is no data, as for
// client_golang.
func (d *decoder) data() bool {
	switch d.peek() {
	case 'n':
		return d.literal("null")
	case '{':
	default:
		return d.fail("data is not an object")
	}
	d.pos++
	k := keys{known: dataKeys}
	for i := 0; d.more('}', i); i++ {
		n, ok := d.member(&k)
		if ok {
			switch n {
			case 0:
				ok = d.resultType()
			case 1:
				ok = d.result()
			default:
				ok = d.skip(2)
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
		return d.fail("data without result")
	}
	return true
}

func (d *decoder) resultType() bool {
	t, ok := d.value(&d.strBuf)
	if !ok {
		return false
	}
	switch string(t) {
	case "vector":
		d.ans.Type = model.ValVector
	case "scalar":
		d.ans.Type = model.ValScalar
	default:
		return d.fail("result type " + string(t))
	}
	return true
}

// result reads the series; resultType must come first (every server
// sends it first), or the series could not be read as they stream by.
func (d *decoder) result() bool {
	switch d.ans.Type {
	case model.ValVector:
		switch d.peek() {
		case 'n':
			return d.literal("null")
		case '[':
		default:
			return d.fail("vector result is not an array")
		}
		d.pos++
		for i := 0; d.more(']', i); i++ {
			if !d.sample() {
				return false
			}
		}
		return !d.bad
	case model.ValScalar:
		return d.scalar()
	}
	return d.fail("result before resultType")
}

// value reads a string as encoding/json decodes it: in place when it needs
// no unescaping, else into *buf.
func (d *decoder) value(buf *[]byte) ([]byte, bool) {
	if d.peek() != '"' {
		return nil, d.fail("not a string")
	}
	t, ok := d.str()
	if !ok {
		return nil, false
	}
	if !t.esc && (!t.wide || utf8.Valid(t.raw)) {
		return t.raw, true
	}
	*buf = appendValue((*buf)[:0], t.raw)
	return *buf, true
}

// text reads a string into dst.
func (d *decoder) text(dst *string) bool {
	t, ok := d.value(&d.strBuf)
	if ok {
		*dst = string(t)
	}
	return ok
}

// texts reads an array of strings, or null, into dst; with a nil dst it
// only checks them.
func (d *decoder) texts(dst *[]string) bool {
	switch d.peek() {
	case 'n':
		if dst != nil {
			*dst = nil
		}
		return d.literal("null")
	case '[':
	default:
		return d.fail("not an array of strings")
	}
	d.pos++
	if dst != nil {
		*dst = []string{}
	}
	for i := 0; d.more(']', i); i++ {
		t, ok := d.value(&d.strBuf)
		if !ok {
			return false
		}
		if dst != nil {
			*dst = append(*dst, string(t))
		}
	}
	return !d.bad
}
