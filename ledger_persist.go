package availmon

import (
	"bytes"
	"encoding/binary"
	"time"

	"github.com/availmon/availmon/internal/ledger"
)

// The ledger is saved with the state since encoding 5, right after the
// apps: a little-endian uint64 length, then what ledger.AppendBinary
// writes. The fixed-width length lets the live state be encoded straight
// into the save's buffer, the length written after the section.

// emptyLedger is the section of a ledger with no record.
var emptyLedger = ledger.New(ledger.Options{}).AppendBinary(nil)

// liveLedger writes the running monitor's ledger, under cycleMu.
func (e *encoder) liveLedger(l *ledger.Ledger) {
	at := len(e.b)
	e.b = append(e.b, 0, 0, 0, 0, 0, 0, 0, 0)
	e.b = l.AppendBinary(e.b)
	binary.LittleEndian.PutUint64(e.b[at:], uint64(len(e.b)-at-8))
}

// ledgerSection reads the section and checks it whole: a damaged ledger
// makes the state unreadable, as any other damaged part does.
func (d *decoder) ledgerSection(s *savedState) {
	if len(d.b) < 8 {
		d.fail("%v ledger", errShort)
		return
	}
	n := binary.LittleEndian.Uint64(d.b)
	d.b = d.b[8:]
	if n > uint64(len(d.b)) {
		d.fail("a ledger of %d bytes in %d", n, len(d.b))
		return
	}
	raw := d.bytes(int(n))
	if _, err := ledger.Decode(raw); err != nil {
		d.fail("%v", err)
		return
	}
	if !bytes.Equal(raw, emptyLedger) {
		s.ledger = bytes.Clone(raw)
	}
}

// restoreLedger puts the saved ledger in place (decodeState checked it).
func (m *Monitor) restoreLedger(raw []byte, now time.Time) {
	saved, err := ledger.Decode(raw)
	if err != nil {
		m.log.Warn("cannot restore the record of availability over time", "err", err)
		return
	}
	m.ledger.Restore(saved, now)
	m.log.Info("restored the record of availability over time", "records", saved.Len())
}
