package history

import (
	"time"

	"github.com/availmon/availmon/internal/statefile"
)

// The checks worth sharing in a SharedRTs are those of the apps one
// Prometheus query answered, planned side by side, whose response time is
// the query's round trip; a probe's own response times stay inline. An
// app's neighbours are enough to tell, and take no memory to find.

// SharesNeighbours reports whether check i of a cycle's n, in plan order,
// has the time and the response time of a neighbour's; check(j) is check
// j's time and response time. Its history then keeps it once, in the
// monitor's SharedRTs (AddShared), rather than once per app.
func SharesNeighbours(n, i int, check func(j int) (time.Time, time.Duration)) bool {
	at, rt := check(i)
	if rt == 0 {
		return false // inline, it takes no more than a reference
	}
	same := func(j int) bool {
		if j < 0 || j >= n {
			return false
		}
		jat, jrt := check(j)
		return jrt == rt && jat.Equal(at)
	}
	return same(i-1) || same(i+1)
}

// SharedInFile tells, for the checks of saved app k, those whose time and
// response time a neighbour in the file has for its check as far from its
// newest: the apps one query answered, saved side by side as they were
// planned. A restored history (Restore) shares them again, as the cycles
// did.
func SharedInFile(apps []statefile.App, k int) func(j int) bool {
	cs := apps[k].Checks
	return func(j int) bool {
		if cs[j].RT == 0 {
			return false
		}
		back := len(cs) - j
		for _, o := range [2]int{k - 1, k + 1} {
			if o < 0 || o >= len(apps) {
				continue
			}
			if oc := apps[o].Checks; len(oc) >= back && oc[len(oc)-back].At == cs[j].At && oc[len(oc)-back].RT == cs[j].RT {
				return true
			}
		}
		return false
	}
}
