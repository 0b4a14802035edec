package availmon

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
)

// Status changes are logged as one summary line per cycle at info, and one
// line per app at debug: a flapping fleet of thousands of apps would
// otherwise write thousands of lines a cycle.

// changeNames is how many changed apps the summary line names.
const changeNames = 5

// logAppChange is the debug line for one app's change. Attributes with
// nothing to say (no previous status on a first check, no error) are left
// out rather than written empty.
func (m *Monitor) logAppChange(app *App, ev *Event, errText string) {
	if !m.log.Enabled(context.Background(), slog.LevelDebug) {
		return
	}
	attrs := []any{"app", app.Name, "location", app.Location, "status", ev.Status}
	if ev.PreviousStatus != "" {
		attrs = append(attrs, "previous_status", ev.PreviousStatus)
	}
	if errText != "" {
		attrs = append(attrs, "err", errText)
	}
	m.log.Debug("status changed", attrs...)
}

// logChangeSummary is the cycle's one info line about status changes: how
// many apps changed, to which state, and the first few of them.
func (m *Monitor) logChangeSummary(evs []Event) {
	var changed, up, down, unavail int
	var names []string
	for i := range evs {
		e := &evs[i]
		if e.Type != EventStatusUpdate {
			continue
		}
		changed++
		switch e.Status {
		case StatusUp:
			up++
		case StatusDown:
			down++
		default:
			unavail++
		}
		if len(names) < changeNames {
			from := "new"
			if e.PreviousStatus != "" {
				from = string(e.PreviousStatus)
			}
			names = append(names, fmt.Sprintf("%s@%s %s->%s", e.App, e.Location, from, e.Status))
		}
	}
	if changed == 0 {
		return
	}
	apps := strings.Join(names, ", ")
	if more := changed - len(names); more > 0 {
		apps += fmt.Sprintf(" and %d more", more)
	}
	m.log.Info("status changes", "changed", changed, "up", up, "down", down, "unavailable", unavail, "apps", apps)
}
