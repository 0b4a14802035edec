package availmon

import (
	"errors"

	"github.com/availmon/availmon/internal/backfill"
	"github.com/availmon/availmon/internal/errtext"
)

// giveUpPast reports whether err is a backend's refusal of a backfill
// question over r as bad input (ErrPastRefused), and if so logs it and
// counts it: asked again, the same question is refused again, so the
// backfill leaves its span unfilled (unknown, as if nobody had asked)
// rather than asking it with backoff forever. A backend down or timing out
// is not a refusal: it is asked again as before.
func (m *Monitor) giveUpPast(backend string, err error, r PastRange, what string) bool {
	if err == nil || !errors.Is(err, ErrPastRefused) {
		return false
	}
	m.bf.metrics.refused.WithLabelValues(backend).Inc()
	m.log.Error("a backend refuses a backfill question as bad input; its span is left unfilled", "backend", backend,
		"question", what, "from", r.Start.UTC(), "to", r.End.UTC(), "step", r.Step, "apps", len(r.Apps),
		"err", errtext.Truncate(err.Error(), maxErrorText))
	return true
}

// refusedFinest is giveUpPast for a question of the record's refinement
// over r, of apps apps and windows windows: one whose refusal says it is
// too large is asked in parts (backfill.ErrTooLarge) while it has parts,
// and given up only as a single window of one app read at one instant,
// which no part makes smaller.
func (m *Monitor) refusedFinest(backend string, err error, r backfill.Range, apps, windows int) bool {
	if tooLarge(err) && (apps > 1 || windows > 1 || r.Window > r.Resolution) {
		return false
	}
	return m.giveUpPast(backend, err, PastRange(r), "states")
}
