package availmon

import "github.com/availmon/availmon/internal/statefile"

// sharesRT reports whether app i's check has the time and the response
// time of a neighbour's in the cycle: the apps one Prometheus query
// answered, planned side by side, whose response time is the query's round
// trip. Their histories then keep it once, in the monitor's shared table,
// rather than once per app; a probe's own response times stay inline. An
// app's neighbours are enough to tell, and take no memory to find.
func sharesRT(p *plan, out *cycleResult, i int) bool {
	rt := out.results[i].ResponseTime
	if rt == 0 {
		return false // inline, it takes no more than a reference
	}
	same := func(j int) bool {
		return j >= 0 && j < len(out.results) && out.results[j].ResponseTime == rt && out.at(p, j).Equal(out.at(p, i))
	}
	return same(i-1) || same(i+1)
}

// sharedInFile tells, for the checks of saved app k, those whose time and
// response time a neighbour in the file has for its check as far from its
// newest: the apps one query answered, saved side by side as they were
// planned. A restored history shares them again, as the cycles did.
func sharedInFile(apps []statefile.App, k int) func(j int) bool {
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
