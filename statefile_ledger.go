package availmon

import "time"

// StateLedger reads the data of a state file (what a Store keeps) for its
// time of save and its ledger section, the record of availability over
// time (internal/ledger's encoding; nil when the file has none), without
// a Monitor: `availmon report` prints reports from it. The error wraps
// ErrBadState.
func StateLedger(data []byte) (savedAt time.Time, ledger []byte, err error) {
	s, err := decodeState(data)
	if err != nil {
		return time.Time{}, nil, err
	}
	return s.savedAt, s.ledger, nil
}
