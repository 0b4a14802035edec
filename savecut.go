package availmon

import (
	"sync"
	"sync/atomic"

	"github.com/availmon/availmon/internal/history"
)

// A save cuts the state between two cycles, under the cycle lock, and
// encodes it after letting the lock go (persist.go), so that a cycle never
// waits for the encoding. What the cut takes is small and fixed per app;
// the parts that cycles change in place are kept as they were at the cut
// without being copied whole:
//
//   - each app's recent checks: a history.Mark (two words), so that the
//     encoding leaves out the checks added since; a check the history
//     dropped since, its oldest, is not saved (docs/decisions.md, Storage);
//   - each app's last state: copied (40 bytes);
//   - each app's 24-hour window (368 bytes, 37 MB at 100,000 apps): copied
//     on write, a chunk of dayChunkApps apps at a time, by whichever comes
//     first to the chunk, the save to encode it or a writer to change it.

// dayChunkApps is how many apps' windows a dayCut copies at a time: 94 KB,
// a few microseconds of copying for whoever comes first.
const dayChunkApps = 256

// dayCut keeps the 24-hour windows of a cycleState's apps as they were at a
// save's cut until the save has encoded them. Every change to an app's
// window goes through cycleState.dayToWrite, under cycleMu.
type dayCut struct {
	chunks []dayChunk
}

type dayChunk struct {
	// pending is set at the cut and cleared by whoever copies the chunk
	// first: while it is set the windows of the chunk are still those of
	// the cut.
	pending atomic.Bool
	mu      sync.Mutex
	saved   []history.AppDay // the cut's windows, when a writer came first
}

// begin marks every chunk of days as the cut's. It runs under cycleMu.
func (c *dayCut) begin(days []history.AppDay) {
	if n := (len(days) + dayChunkApps - 1) / dayChunkApps; len(c.chunks) != n {
		c.chunks = make([]dayChunk, n)
	}
	for i := range c.chunks {
		c.chunks[i].pending.Store(true)
	}
}

// chunkOf is the span of days chunk k holds.
func chunkOf(days []history.AppDay, k int) []history.AppDay {
	return days[k*dayChunkApps : min((k+1)*dayChunkApps, len(days))]
}

// beforeWrite keeps the cut's windows of app i's chunk, if the save has not
// taken them yet, before a writer changes the window. It runs under cycleMu.
func (c *dayCut) beforeWrite(days []history.AppDay, i int) {
	k := i / dayChunkApps
	if k >= len(c.chunks) || !c.chunks[k].pending.Load() {
		return
	}
	ch := &c.chunks[k]
	ch.mu.Lock()
	if ch.pending.Load() {
		ch.saved = append([]history.AppDay(nil), chunkOf(days, k)...)
		ch.pending.Store(false)
	}
	ch.mu.Unlock()
}

// take returns the cut's windows of chunk k, copied into scratch when no
// writer copied them first, and releases the chunk to writers. Only the
// save calls it, once per chunk, after the cut.
func (c *dayCut) take(days []history.AppDay, k int, scratch []history.AppDay) []history.AppDay {
	ch := &c.chunks[k]
	ch.mu.Lock()
	defer ch.mu.Unlock()
	if ch.pending.Load() {
		// Copied before writers are let in: one that finds the chunk no
		// longer pending writes at once.
		out := append(scratch[:0], chunkOf(days, k)...)
		ch.pending.Store(false)
		return out
	}
	saved := ch.saved
	ch.saved = nil
	return saved
}

// dayToWrite is app i's window, for a writer to change: the cut of a save
// that has not encoded it yet keeps it first. It runs under cycleMu.
func (st *cycleState) dayToWrite(i int) *history.AppDay {
	st.days.beforeWrite(st.appDay, i)
	return &st.appDay[i]
}
