package hmac

import (
	"crypto/sha256"
	"time"
)

// ReplayEntry is a signature a Verifier accepted and refuses until Expires
// (the request's X-Timestamp plus the skew tolerance). The signature alone
// identifies a request: it is an HMAC over the method, path, body and
// timestamp, so it reveals nothing of the secret or the body.
type ReplayEntry struct {
	Signature [sha256.Size]byte
	Expires   time.Time
}

// ReplayEntries returns the signatures v would refuse now, oldest first; nil
// when replay protection is off. A program that restarts keeps them and
// hands them to RestoreReplay of its next Verifier, so that a request
// captured before the restart cannot be replayed after it.
func (v *Verifier) ReplayEntries() []ReplayEntry {
	if v.replay == nil {
		return nil
	}
	return v.replay.entries(v.now())
}

// RestoreReplay makes v refuse the given signatures until they expire, as if
// it had accepted them itself; entries that have expired are skipped, and
// the replay cache's size bound still holds. Call it before serving. It
// returns how many entries were restored.
func (v *Verifier) RestoreReplay(es []ReplayEntry) int {
	if v.replay == nil {
		return 0
	}
	now := v.now()
	n := 0
	for _, e := range es {
		if !now.Before(e.Expires) {
			continue
		}
		if v.replay.add(e.Signature, now, e.Expires) >= 0 {
			n++
		}
	}
	return n
}

func (c *replayCache) entries(now time.Time) []ReplayEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]ReplayEntry, 0, c.n)
	for i := range c.n {
		sig := c.order[(c.head+i)%len(c.order)]
		if end := c.seen[sig]; now.Before(end) {
			out = append(out, ReplayEntry{Signature: sig, Expires: end})
		}
	}
	return out
}
