package availmon

import (
	"sync"
	"time"
)

// historyCache keeps a snapshot's /api/status/history answers. An answer
// depends on the minute history, which only a cycle changes (and every
// cycle publishes a new snapshot, with an empty cache), and on the current
// minute, which moves the buckets along: so it is made at most once per
// period, resolution and minute, instead of scanning and encoding up to
// 43,200 minute buckets per request.
type historyCache struct {
	mu      sync.Mutex
	answers map[historyKey]historyAnswer
}

type historyKey struct{ period, resolution string }

type historyAnswer struct {
	minute int64     // unix minute the answer was made for
	made   time.Time // when: the answer's meta.timestamp
	count  int       // data points
	body   *encodedBody
}

// get returns the answer for period and res at now, made from h when the
// cache has none for now's minute.
func (c *historyCache) get(h *minuteHistory, now time.Time, period, res string, pd, rd time.Duration) historyAnswer {
	key, minute := historyKey{period, res}, now.Unix()/60
	if now.Unix() < 0 && now.Unix()%60 != 0 {
		minute-- // floor, for a test clock before 1970
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if a, ok := c.answers[key]; ok && a.minute == minute {
		return a
	}
	points := h.points(now, pd, rd)
	out := make([]dataPointJSON, len(points))
	for i, p := range points {
		out[i] = dataPointJSON{Timestamp: jsonTime(p.start), OverallAvailability: p.availability,
			AppsUp: p.up, AppsDown: p.down, AppsUnavailable: p.unavai}
	}
	a := historyAnswer{minute: minute, made: now, count: len(out),
		body: newEncodedBody(envelopeHead(statusHistoryJSON{Period: period, Resolution: res, DataPoints: out}))}
	if c.answers == nil {
		c.answers = make(map[historyKey]historyAnswer)
	}
	c.answers[key] = a
	return a
}
