package availmon

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/availmon/availmon/internal/promtest"
)

// The log line of a restore counts the saved apps the plan does not list
// as awaiting their discovery rule, not as dropped: their history is kept
// when a rule finds them (billing, no longer listed, may be found too). An
// interval set at run time that overrides the configured one says so.
func TestRestoreLog(t *testing.T) {
	clock := newFakeClock(t0)
	st := &memStore{}
	withStore := func(o *Options) { o.Store, o.Clock = st, clock }
	before, q := discoveryMonitor(t, withStore)
	before.clock = clock
	q.set(nil, sample(1, "service", "cart", "region", "il"), sample(0, "service", "gone", "region", "il"))
	before.scrape(t)
	if err := before.SetInterval(45 * time.Second); err != nil {
		t.Fatal(err)
	}
	if err := before.save(t.Context()); err != nil {
		t.Fatal(err)
	}

	var logs promtest.SyncBuffer
	discoveryMonitor(t, withStore, func(o *Options) {
		o.Logger = slog.New(slog.NewTextHandler(&logs, nil))
		o.Interval = 20 * time.Second
		o.Apps = o.Apps[:2] // billing is no longer listed
	})
	for _, want := range []string{
		` apps=2 apps_awaiting_discovery=3 apps_dropped=0`,
		`msg="restored the scrape interval set at run time; it overrides the configured one" interval=45s configured=20s`,
	} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("the log has no %s:\n%s", want, logs.String())
		}
	}
}
