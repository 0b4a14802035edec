package availmon

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
