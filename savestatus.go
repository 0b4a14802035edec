package availmon

import (
	"sync"
	"time"

	"github.com/availmon/availmon/internal/errtext"
	"github.com/availmon/availmon/promexport"
)

// saveRecord is what a Monitor knows of its state saves, for /metrics
// (promexport.SaveCollector) and the storage member of /api/status. A
// failing save is otherwise only a warning in the log, and the state a
// restart would find grows older unseen. Safe for concurrent use.
type saveRecord struct {
	mu          sync.Mutex
	lastSuccess time.Time
	lastErr     string // the last save's error; "" once one succeeded
	consecutive int    // failures since the last success
	failures    uint64 // every failure since New
}

// done records the outcome of a save that ended at at.
func (r *saveRecord) done(at time.Time, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err == nil {
		r.lastSuccess, r.lastErr, r.consecutive = at, "", 0
		return
	}
	r.lastErr = errtext.Truncate(err.Error(), maxErrorText)
	r.consecutive++
	r.failures++
}

func (r *saveRecord) promStatus() promexport.SaveStatus {
	r.mu.Lock()
	defer r.mu.Unlock()
	return promexport.SaveStatus{LastSuccess: r.lastSuccess, Failures: r.failures}
}

// storageJSON is the storage member of /api/status, present when the
// monitor has a Store.
type storageJSON struct {
	// LastSave is null before the first successful save.
	LastSave jsonTime `json:"last_save"`
	// LastSaveError is null while the last save succeeded (or none ended).
	LastSaveError *string `json:"last_save_error"`
	// ConsecutiveFailures counts the saves that failed since the last that
	// succeeded; while it is not 0, system_status is at best degraded.
	ConsecutiveFailures int `json:"consecutive_failures"`
}

// storageStatus is the storage member of /api/status; nil without a Store.
func (m *Monitor) storageStatus() *storageJSON {
	if m.store == nil {
		return nil
	}
	r := &m.saves
	r.mu.Lock()
	defer r.mu.Unlock()
	s := &storageJSON{LastSave: jsonTime(r.lastSuccess), ConsecutiveFailures: r.consecutive}
	if r.lastErr != "" {
		e := r.lastErr
		s.LastSaveError = &e
	}
	return s
}
