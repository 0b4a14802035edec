package promanswer

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"
)

// answer10k is a fused query's answer at 10,000 apps as Prometheus sends
// it: every series with its name, instance and job besides the app label
// that routes it.
func answer10k() (body []byte, index map[string]int) {
	const n = 10_000
	index = make(map[string]int, n)
	var sb strings.Builder
	sb.WriteString(`{"status":"success","data":{"resultType":"vector","result":[`)
	for i := range n {
		if i > 0 {
			sb.WriteByte(',')
		}
		app := fmt.Sprintf("app-%05d", i)
		index[app] = i
		fmt.Fprintf(&sb, `{"metric":{"__name__":"demo_up","app":"%s","instance":"127.0.0.1:%d","job":"demo"},"value":[1700000000.%03d,"%d"]}`,
			app, 9000+i%1000, i%1000, i%2)
	}
	sb.WriteString(`]}}`)
	return []byte(sb.String()), index
}

// BenchmarkDecode reads a fused answer of 10,000 series; cpu-ns/op is the
// process's CPU time per answer (the garbage collector's included), which
// other load on the machine disturbs less than ns/op.
func BenchmarkDecode(b *testing.B) {
	body, index := answer10k()
	route := func(v [][]byte) int {
		if i, ok := index[string(v[0])]; ok {
			return i
		}
		return -1
	}
	buf := make([]Series, 0, len(index))
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	cpu := cpuTime()
	for b.Loop() {
		ans, err := Decode(body, []string{"app"}, route, buf)
		if err != nil || len(ans.Series) != len(index) {
			b.Fatalf("%d series, %v", len(ans.Series), err)
		}
		buf = ans.Series
	}
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
