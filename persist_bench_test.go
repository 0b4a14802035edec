package availmon

import (
	"context"
	"fmt"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/availmon/availmon/internal/memstore"
)

// fullStateMonitor is the 10,000-app fixture with every app's history full
// (history_size 100) and 30 days of minute buckets.
func fullStateMonitor(b *testing.B) (*Monitor, *fakeClock) {
	b.Helper()
	return fullStateMonitorWith(b, 10_000)
}

// fullStateMonitorWith is fullStateMonitor with apps apps, and opts applied
// to its options.
func fullStateMonitorWith(b *testing.B, apps int, opts ...func(*Options)) (*Monitor, *fakeClock) {
	b.Helper()
	m, clock := largeMonitorWith(b, apps, 100, defaultHistorySize, opts...)
	now := clock.Now()
	for i := range historyMinutes {
		m.hist.add(now.Add(-time.Duration(i)*time.Minute), 9000, 700, 300)
	}
	return m, clock
}

// BenchmarkStateEncodeLive is the encoding of a save (all of it but the
// write); BenchmarkStateSaveLock the part of it that holds the cycle lock.
func BenchmarkStateEncodeLive(b *testing.B) {
	m, _ := fullStateMonitor(b)
	benchEncodeLive(b, m)
}

// BenchmarkStateEncodeLive50k is the same at 50,000 apps.
func BenchmarkStateEncodeLive50k(b *testing.B) {
	m, _ := fullStateMonitorWith(b, 50_000)
	benchEncodeLive(b, m)
}

// BenchmarkStateEncodeLive50kFailing is 50,000 apps of which 30% fail every
// check with an error text of their own that changes every check, as a
// timeout naming the app and the connection's port does: the worst case for
// the error texts a save writes.
func BenchmarkStateEncodeLive50kFailing(b *testing.B) {
	m, _ := fullStateMonitorWith(b, 50_000, func(o *Options) { o.Backends[0].Source = &failingSource{} })
	benchEncodeLive(b, m)
}

// benchEncodeLive encodes the state into a buffer presized from the last
// save, as the saver does, and reports the state's size.
func benchEncodeLive(b *testing.B, m *Monitor) {
	n := len(m.encodeLive(0))
	b.ReportAllocs()
	reportCPU(b, func() { _ = m.encodeLive(n + n/16 + 4096) })
	b.ReportMetric(float64(n), "bytes/state")
}

// failingSource is benchSource with 30% of the apps unavailable, each with
// a text naming the app and a port that changes every check.
type failingSource struct{ calls atomic.Int64 }

func (s *failingSource) Check(ctx context.Context, apps []App) ([]Result, error) {
	out, _ := benchSource{}.Check(ctx, apps)
	for i, a := range apps {
		if n := int(a.Name[len(a.Name)-1]) + int(a.Name[len(a.Name)-2]); n%10 < 3 {
			port := 32768 + s.calls.Add(1)%28000
			out[i] = Result{Status: StatusUnavailable, Err: fmt.Errorf(
				`Get "http://%s.internal:8080/health": dial tcp 10.0.3.7:%d->10.1.0.1:8080: i/o timeout (Client.Timeout exceeded while awaiting headers)`, a.Name, port)}
		}
	}
	return out, nil
}

// BenchmarkStateCopy is what a save would hold the cycle lock for if it
// copied the state before encoding it (the tests' reference does), set
// against the live encoding; BenchmarkStateEncode is the encoding of that
// copy.
func BenchmarkStateCopy(b *testing.B) {
	m, _ := fullStateMonitor(b)
	b.ReportAllocs()
	reportCPU(b, func() { _ = m.copyState() })
}

func BenchmarkStateEncode(b *testing.B) {
	m, _ := fullStateMonitor(b)
	s := m.copyState()
	var n int
	b.ReportAllocs()
	reportCPU(b, func() { n = len(encodeState(s)) })
	b.ReportMetric(float64(n), "bytes/state")
}

// BenchmarkStateRestore is New with a 10,000-app state to restore, against
// BenchmarkNewWithoutState for the same options.
func BenchmarkStateRestore(b *testing.B) {
	m, clock := fullStateMonitor(b)
	st := memstore.New(encodeState(m.copyState()))
	o := Options{Apps: m.plan.apps, Locations: m.plan.locations, Backends: m.plan.backends, Clock: clock, Store: st}
	b.ReportAllocs()
	reportCPU(b, func() {
		if _, err := New(o); err != nil {
			b.Fatal(err)
		}
	})
}

func BenchmarkNewWithoutState(b *testing.B) {
	m, clock := largeMonitor(b, 10_000, 100, 1)
	o := Options{Apps: m.plan.apps, Locations: m.plan.locations, Backends: m.plan.backends, Clock: clock}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := New(o); err != nil {
			b.Fatal(err)
		}
	}
}

// cpuTime is the process's user+system CPU time: on a loaded machine the
// wall time of a benchmark says more about the other processes.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU runs the benchmark loop body and reports CPU ms per op.
func reportCPU(b *testing.B, body func()) {
	start := cpuTime()
	n := 0
	for b.Loop() {
		body()
		n++
	}
	b.ReportMetric(float64(cpuTime()-start)/float64(n)/1e6, "cpu-ms/op")
}

// BenchmarkStateSaveLock is how long a save holds the cycle lock, the most
// a cycle due meanwhile waits (availmon_state_last_save_cycle_lock_seconds),
// at full histories: lock-ms/op is its mean, cpu-ms/op the whole encoding's.
func BenchmarkStateSaveLock(b *testing.B) {
	for _, apps := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("apps=%d", apps), func(b *testing.B) {
			m, _ := fullStateMonitorWith(b, apps)
			n := len(m.encodeLive(0))
			var locked time.Duration
			ops := 0
			b.ReportAllocs()
			reportCPU(b, func() {
				_, l := m.encodeLiveTimed(n + n/16 + 4096)
				locked += l
				ops++
			})
			b.ReportMetric(float64(locked)/float64(ops)/1e6, "lock-ms/op")
			b.ReportMetric(float64(n), "bytes/state")
		})
	}
}
