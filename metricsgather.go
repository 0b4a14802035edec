package availmon

import (
	"bytes"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
)

// liveFamilies gathers /metrics' live families, one gather at a time:
// scrapes that arrive while one is under way share its result (as promhttp's
// CoalesceGather does), and its encoding per format. The process collector
// alone reads half a dozen /proc files per gather, which under a burst of
// scrapes costs more than writing the answers.
type liveFamilies struct {
	g prometheus.Gatherer

	mu  sync.Mutex
	cur *liveGather // the gather under way, or nil
}

type liveGather struct {
	done chan struct{} // closed when mfs and err are set
	mfs  []*dto.MetricFamily
	err  error

	mu  sync.Mutex
	enc map[expfmt.Format][]byte
}

// gather returns a gather that was under way when called, or a new one.
func (l *liveFamilies) gather() *liveGather {
	l.mu.Lock()
	if g := l.cur; g != nil {
		l.mu.Unlock()
		<-g.done
		return g
	}
	g := &liveGather{done: make(chan struct{})}
	l.cur = g
	l.mu.Unlock()

	defer func() {
		l.mu.Lock()
		l.cur = nil
		l.mu.Unlock()
		close(g.done)
	}()
	g.mfs, g.err = l.g.Gather()
	return g
}

// encoded is the gather's families in format, closed (an OpenMetrics
// "# EOF" included), encoded on first use. onErr sees encoding errors.
func (g *liveGather) encoded(f expfmt.Format, onErr func(*dto.MetricFamily, error)) []byte {
	g.mu.Lock()
	defer g.mu.Unlock()
	if b, ok := g.enc[f]; ok {
		return b
	}
	var buf bytes.Buffer
	enc := expfmt.NewEncoder(&buf, f)
	for _, mf := range g.mfs {
		if err := enc.Encode(mf); err != nil {
			onErr(mf, err)
		}
	}
	if c, ok := enc.(expfmt.Closer); ok {
		c.Close() //nolint:errcheck // a bytes.Buffer does not fail
	}
	if g.enc == nil {
		g.enc = make(map[expfmt.Format][]byte)
	}
	g.enc[f] = buf.Bytes()
	return g.enc[f]
}
