package ledger

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/availmon/availmon/internal/bytecodec"
	"github.com/availmon/availmon/timeline"
)

// ErrCorrupt is the error of Decode for bytes AppendBinary could not have
// written, wrapped with what was wrong.
var ErrCorrupt = errors.New("ledger: corrupt encoding")

// encoding is the version of the form AppendBinary writes:
//
//	version  byte, 1
//	count    uvarint: entities
//	entity   byte kind (0 app, 1 location, 2 service), uvarint length and
//	         bytes of the name, for an app those of its location, then a
//	         little-endian uint32 length and the record (timeline's form)
//
// The record's length is fixed-width so that the live state is encoded
// straight into the save's buffer, its length written after it.
const encoding = 1

// maxName bounds a name read back: longer is corrupt. Names are those of
// the configuration (label values of at most 1,024 bytes, location names).
const maxName = 64 << 10

// AppendBinary appends the ledger's records to b.
func (l *Ledger) AppendBinary(b []byte) []byte {
	return l.Book(time.Time{}).AppendBinary(b)
}

// AppendBinary appends the book's records to b in the form of
// Ledger.AppendBinary: the ledger's as they were when the book was taken.
// A Book is immutable, so a save takes one under the cycle lock (a view
// per entity) and encodes the whole history outside it.
func (bk *Book) AppendBinary(b []byte) []byte {
	b = bk.appendHead(b)
	for k := range nKinds {
		for i := range bk.r.ents[k] {
			b = bk.appendEntity(b, k, i)
		}
	}
	return b
}

// EachBinary calls emit with the pieces of AppendBinary's encoding in
// order, the head and then one entity's record at a time, each encoded
// into buf (reused: emit must not keep it), and returns buf grown for the
// next call. A save streams the history this way, never holding more than
// a record of it; as the Book does not change, each call emits the same
// bytes. It stops at emit's first error and returns it.
func (bk *Book) EachBinary(buf []byte, emit func([]byte) error) ([]byte, error) {
	buf = bk.appendHead(buf[:0])
	if err := emit(buf); err != nil {
		return buf, err
	}
	for k := range nKinds {
		for i := range bk.r.ents[k] {
			buf = bk.appendEntity(buf[:0], k, i)
			if err := emit(buf); err != nil {
				return buf, err
			}
		}
	}
	return buf, nil
}

// appendHead appends the version and the count of entities.
func (bk *Book) appendHead(b []byte) []byte {
	b = append(b, encoding)
	n := 0
	for k := range nKinds {
		n += len(bk.r.ents[k])
	}
	return binary.AppendUvarint(b, uint64(n))
}

// appendEntity appends entity i of kind k: its kind, name(s) and record.
func (bk *Book) appendEntity(b []byte, k Kind, i int) []byte {
	e := bk.r.ents[k][i]
	b = append(b, byte(k))
	b = appendString(b, e.name)
	if k == App {
		b = appendString(b, bk.r.appLoc[i])
	}
	at := len(b)
	b = append(b, 0, 0, 0, 0)
	b, _ = bk.View(k, i).AppendBinary(b) // a View's encoding does not fail
	binary.LittleEndian.PutUint32(b[at:], uint32(len(b)-at-4))
	return b
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// Saved is a ledger read back by Decode, to be put in place by Restore.
type Saved struct {
	ents []savedEntry
}

type savedEntry struct {
	kind           Kind
	name, location string
	rec            timeline.Record
}

// Len is how many records s holds.
func (s *Saved) Len() int { return len(s.ents) }

// Decode reads what AppendBinary wrote. It trusts nothing: counts are
// checked against the bytes left, names for length and UTF-8, each record
// by timeline, and a name given twice is refused; the error wraps
// ErrCorrupt.
func Decode(data []byte) (*Saved, error) {
	d := decoder{bytecodec.New(data, ErrCorrupt)}
	if v := d.Byte(); d.Err() == nil && v != encoding {
		return nil, fmt.Errorf("%w: encoding %d, this availmon reads %d", ErrCorrupt, v, encoding)
	}
	n := d.Uvarint()
	if d.Err() == nil && n > uint64(d.Len()/6) {
		return nil, fmt.Errorf("%w: %d records cannot fit in %d bytes", ErrCorrupt, n, d.Len())
	}
	s := &Saved{ents: make([]savedEntry, 0, n)}
	var seen [nKinds]map[string]bool
	for k := range seen {
		seen[k] = make(map[string]bool)
	}
	for range n {
		if d.Err() != nil {
			break
		}
		var e savedEntry
		e.kind = Kind(d.Byte())
		if d.Err() == nil && e.kind >= nKinds {
			d.Fail("kind %d", e.kind)
			break
		}
		e.name = d.str()
		if e.kind == App {
			e.location = d.str()
		}
		if d.Err() == nil && seen[e.kind][e.name] {
			d.Fail("%s %q given twice", e.kind, e.name)
		}
		rec := d.Bytes(int(d.Uint32()))
		if d.Err() == nil {
			if err := e.rec.UnmarshalBinary(rec); err != nil {
				d.Fail("%s %q: %v", e.kind, e.name, err)
			}
		}
		if d.Err() == nil {
			seen[e.kind][e.name] = true
			s.ents = append(s.ents, e)
		}
	}
	if d.Err() == nil && d.Len() > 0 {
		d.Fail("%d bytes after the end", d.Len())
	}
	if d.Err() != nil {
		return nil, d.Err()
	}
	return s, nil
}

// decoder reads names as the configuration bounds them, on the shared
// checked reader.
type decoder struct{ bytecodec.Decoder }

func (d *decoder) str() string {
	n := d.Uvarint()
	if n > maxName || n > uint64(d.Len()) {
		d.Fail("a name of %d bytes", n)
		return ""
	}
	s := string(d.Bytes(int(n)))
	if !utf8.ValidString(s) {
		d.Fail("a name is not UTF-8")
	}
	return s
}

// Restore puts the saved records in place by name, before the monitor's
// first cycle: an entity of the layout goes on with its record (marked
// configured again if it had been removed), one the layout does not have
// is kept, marked removed at now unless it already was. The maintenance
// marked from now on is dropped (see Restored): the windows are marked
// again by the next Sync.
func (l *Ledger) Restore(s *Saved, now time.Time) {
	inLayout := [nKinds]map[*entry]bool{}
	for k := range nKinds {
		inLayout[k] = make(map[*entry]bool, len(l.cur[k]))
		for _, e := range l.cur[k] {
			inLayout[k][e] = true
		}
	}
	for i := range s.ents {
		se := &s.ents[i]
		e := l.get(se.kind, se.name)
		e.rec = se.rec
		v := e.rec.View()
		e.out.end()
		// An outage the saved record holds into now goes on with the
		// next bad state rather than being announced again.
		if os := v.Outages(now.Add(-time.Second), now); len(os) > 0 && os[len(os)-1].Ongoing {
			o := os[len(os)-1]
			e.out.begin(o.Start.UnixNano(), o.Full)
			e.out.last = now.UnixNano()
		}
		switch {
		case inLayout[se.kind][e] && !e.rec.Removed().IsZero():
			e.setRemoved(time.Time{})
		case !inLayout[se.kind][e] && e.rec.Removed().IsZero():
			e.location = se.location
			e.setRemoved(now)
		case !inLayout[se.kind][e]:
			e.location = se.location
		}
	}
	s.ents = nil
	l.roster = nil
	l.Restored(now)
	l.lastPrune = time.Time{}
}
