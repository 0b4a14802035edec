package promsource

import (
	"sync"
	"time"
)

// soloVerdictTTL is how long an expression found not combinable is asked on
// its own before a combined query tries it again, so that an expression (or
// a backend) that was fixed heals by itself.
const soloVerdictTTL = time.Hour

// soloVerdicts remembers, per expression, until when it is asked on its own.
// Time is a parameter: the caller reads its Clock once per Check.
type soloVerdicts struct {
	mu    sync.Mutex
	until map[string]time.Time
}

func newSoloVerdicts() *soloVerdicts {
	return &soloVerdicts{until: make(map[string]time.Time)}
}

// solo reports whether any of exprs is to be asked on its own at now; it
// forgets verdicts that have expired.
func (v *soloVerdicts) solo(now time.Time, exprs ...string) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	found := false
	for _, e := range exprs {
		if e == "" {
			continue
		}
		until, ok := v.until[e]
		switch {
		case !ok:
		case now.Before(until):
			found = true
		default:
			delete(v.until, e)
		}
	}
	return found
}

// mark makes expr solo until now+soloVerdictTTL, and reports whether it
// was not solo already. A verdict in force is not extended: an expression
// asked alone fails alone every cycle, and must still be tried combined
// once its hour is over.
func (v *soloVerdicts) mark(now time.Time, expr string) (fresh bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if until, ok := v.until[expr]; ok && now.Before(until) {
		return false
	}
	v.until[expr] = now.Add(soloVerdictTTL)
	return true
}
