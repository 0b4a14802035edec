// Package answercache keeps answers that are costly to make by the query
// they answer, each made once while the requests for the same one wait for
// it, bounded in number and in bytes.
//
// A Cache holds the answers of what does not change (a snapshot); a Gen
// holds a Cache for the newest generation of what changes seldom, so
// that its answers outlive the snapshots they were made from:
//
//	var c answercache.Cache[answer]
//	a := c.Get(query.Key, func() answer { return makeAnswer(query) })
package answercache
