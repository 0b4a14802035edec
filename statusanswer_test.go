package availmon

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	"github.com/availmon/availmon/internal/jsontime"
	"github.com/google/go-cmp/cmp"
)

// The kept /api/status answer is what writeJSON writes for the same
// status, whichever member changed since the last: equal keys for equal
// members (whatever their pointers), a new answer for any difference.
func TestStatusAnswerFollowsMembers(t *testing.T) {
	snap := &snapshot{}
	errText := "disk full"
	from, to := jsontime.Time(t0.Add(-24*time.Hour)), jsontime.Time(t0)
	storage := func(failures int, err *string) *storageJSON {
		return &storageJSON{LastSave: jsontime.Time(t0), ConsecutiveFailures: failures, LastSaveError: err}
	}
	backfill := func(done int) *backfillStatusJSON {
		f, t := from, to // pointers of their own, as each request's
		return &backfillStatusJSON{State: "running", Progress: float64(done) / 10, From: &f, To: &t, AppsTotal: 10, AppsDone: done}
	}
	laterTo := func(b *backfillStatusJSON) *backfillStatusJSON {
		t := jsontime.Time(t0.Add(time.Hour))
		b.To = &t
		return b
	}
	var c statusCache
	for i, tt := range []struct {
		system   string
		storage  *storageJSON
		backfill *backfillStatusJSON
		reused   bool
	}{
		{"healthy", nil, nil, false},
		{"healthy", nil, nil, true},
		{"healthy", storage(0, nil), backfill(1), false},
		{"healthy", storage(0, nil), backfill(1), true},
		{"healthy", storage(0, nil), backfill(2), false},
		{"healthy", storage(0, nil), laterTo(backfill(2)), false},
		{"healthy", storage(0, nil), backfill(2), false},
		{"degraded", storage(1, &errText), backfill(2), false},
		{"degraded", storage(1, new(string(errText))), backfill(2), true},
		{"degraded", storage(1, new("disk gone")), backfill(2), false},
		{"unhealthy", storage(1, new("disk gone")), backfill(2), false},
	} {
		data := &statusJSON{SystemStatus: tt.system, TotalApplications: 3, LastUpdate: jsontime.Time(t0),
			PrometheusConnectivity: "connected", Storage: tt.storage, Backfill: tt.backfill}
		last := c.last.Load()
		got := httptest.NewRecorder()
		c.write(got, newStatusKey(snap, tt.system, tt.storage, tt.backfill), data)
		want := httptest.NewRecorder()
		writeJSON(want, http.StatusOK, envelope{Data: *data})
		if diff := cmp.Diff(want.Body.String(), got.Body.String()); diff != "" {
			t.Errorf("%d: answer (-want +got):\n%s", i, diff)
		}
		if diff := cmp.Diff(want.Header(), got.Header()); diff != "" {
			t.Errorf("%d: headers (-want +got):\n%s", i, diff)
		}
		if reused := last != nil && c.last.Load() == last; reused != tt.reused {
			t.Errorf("%d: answer reused %v, want %v", i, reused, tt.reused)
		}
	}
}

// The kept answer does not keep the snapshot it was made from: a snapshot
// holds a Book, which holds every record as it was, and a record written
// afresh since (a prune) would be held twice for as long as no one asked
// for /api/status again.
func TestStatusAnswerKeepsNoSnapshot(t *testing.T) {
	snap := &snapshot{seq: 1}
	gone := make(chan struct{})
	runtime.AddCleanup(snap, func(struct{}) { close(gone) }, struct{}{})
	var c statusCache
	c.write(httptest.NewRecorder(), newStatusKey(snap, "healthy", nil, nil), &statusJSON{SystemStatus: "healthy"})
	snap = nil
	for range 100 {
		runtime.GC()
		select {
		case <-gone:
			return
		default:
			runtime.Gosched()
		}
	}
	t.Error("the kept /api/status answer keeps its snapshot alive")
	runtime.KeepAlive(&c)
}
