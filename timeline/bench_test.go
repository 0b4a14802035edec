package timeline

import (
	"sync"
	"testing"
	"time"
)

var (
	typicalOnce, worstOnce sync.Once
	typical, worst         []View
)

// typicalFleet is 10,000 apps with 400 days of history, 1% of them with an
// outage a day.
func typicalFleet() []View {
	typicalOnce.Do(func() { typical = views(fleet(10_000, 100, 400, 1)) })
	return typical
}

// worstFleet is 1,000 apps with 10 outages every day for 400 days.
func worstFleet() []View {
	worstOnce.Do(func() { worst = views(fleet(1000, 1000, 400, 10)) })
	return worst
}

func views(rs []Record) []View {
	vs := make([]View, len(rs))
	for i := range rs {
		vs[i] = rs[i].View()
	}
	return vs
}

func days90() []time.Time {
	b := make([]time.Time, 91)
	for i := range b {
		b[i] = fleetEnd.AddDate(0, 0, i-90)
	}
	return b
}

// One op: the 90-day totals of every app of the fleet.
func BenchmarkTotals90dTypical(b *testing.B) { benchTotals(b, typicalFleet()) }
func BenchmarkTotals90dWorst(b *testing.B)   { benchTotals(b, worstFleet()) }

func benchTotals(b *testing.B, vs []View) {
	from := fleetEnd.AddDate(0, 0, -90)
	for b.Loop() {
		var sum Totals
		for i := range vs {
			sum = sum.Add(vs[i].Totals(from, fleetEnd))
		}
	}
}

// One op: the 90 daily steps of every app of the fleet (the page's bars).
func BenchmarkSteps90dTypical(b *testing.B) { benchSteps(b, typicalFleet()) }
func BenchmarkSteps90dWorst(b *testing.B)   { benchSteps(b, worstFleet()) }

func benchSteps(b *testing.B, vs []View) {
	bounds := days90()
	sum := make([]Totals, 90)
	for b.Loop() {
		for i := range vs {
			clear(sum)
			vs[i].AddSteps(sum, bounds)
		}
	}
}

// One op: the outages of 90 days of one app with 10 a day.
func BenchmarkOutages90dWorst(b *testing.B) {
	vs := worstFleet()
	from := fleetEnd.AddDate(0, 0, -90)
	for b.Loop() {
		vs[0].Outages(from, fleetEnd)
	}
}

// One op: the 90-day outage count of every app of the fleet with 10 a day.
func BenchmarkCountOutages90dWorst(b *testing.B) {
	vs := worstFleet()
	from := fleetEnd.AddDate(0, 0, -90)
	for b.Loop() {
		for i := range vs {
			vs[i].CountOutages(from, fleetEnd)
		}
	}
}

// One op: a check that changes nothing but the time (most checks).
func BenchmarkCheck(b *testing.B) {
	var r Record
	t := fleetEnd
	for b.Loop() {
		t = t.Add(30 * time.Second)
		r.Check(t, Up, time.Minute)
	}
}

// One op: encode and decode a record of 400 days with 10 outages a day.
func BenchmarkEncodeDecodeWorst(b *testing.B) {
	v := worstFleet()[0]
	var buf []byte
	for b.Loop() {
		buf, _ = v.AppendBinary(buf[:0])
		var r Record
		if err := r.UnmarshalBinary(buf); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(buf)), "bytes")
}
