package history

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"
	"time"
	"unsafe"

	"github.com/availmon/availmon/internal/statefile"
	"github.com/google/go-cmp/cmp"
)

// An app's compact window answers as a plain model of it does, over any
// sequence of checks, restores and past hours that fuzz bytes describe.
func FuzzAppDayWindow(f *testing.F) {
	f.Add([]byte{1, 0, 10, 0, 200, 3, 255, 40, 1, 1, 1, 90})
	f.Add([]byte{0, 0, 200, 1, 5, 0, 240, 0, 1, 0, 140, 2, 3, 5, 4, 7, 6})
	f.Add([]byte{1, 4, 60, 0, 0, 5, 250, 9, 9, 1, 2, 6, 3, 200, 7, 1, 8, 7})
	f.Fuzz(func(t *testing.T, ops []byte) {
		checkDayOps(t, ops[:min(len(ops), 512)]) // ~200 operations: each run stays quick
	})
}

// The same comparison over random sequences: checks with the clock going
// forward, back a little and back a lot, gaps longer than a day, restores
// and past hours (some past what 16 bits count, which checks then add to).
func TestAppDayWindowModel(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		ops := make([]byte, 1+r.IntN(600))
		for i := range ops {
			ops[i] = byte(r.Uint32())
		}
		checkDayOps(t, ops)
		if t.Failed() {
			t.Fatalf("ops %v", ops)
		}
	}
}

// checkDayOps runs the operations ops describe on a window and on a model
// of it, and compares them after each.
func checkDayOps(t *testing.T, ops []byte) {
	t.Helper()
	o := byteReader{b: ops}
	now := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	if o.next()%2 == 0 {
		now = time.Date(1969, 12, 30, 22, 0, 0, 0, time.UTC) // negative hours
	}
	var w AppDay
	m := dayModel{hours: map[int64]modelHour{}}
	for step := 0; len(o.b) > 0; step++ {
		switch op := o.next() % 8; op {
		case 0, 1, 2, 3, 4:
			if op < 4 { // 4: another check at the same time
				now = now.Add(clockStep(o.next()))
			}
			s, rt := statusCodes[o.next()%3], WindowRT(responseTime(o.next(), o.next()))
			w.Add(now, s, rt)
			m.add(now, s, rt)
		case 5:
			hour, c := now.Unix()/3600+int64(int8(o.next())), pastCounts(&o)
			w.AddHour(hour, c)
			m.addHour(hour, c)
		case 6:
			d := storedWindow(&o, now.Unix()/3600)
			w.Set(&d)
			m.set(&d)
		case 7: // a save and a restore change nothing
			before := w
			w.Set(w.Window())
			if !sameAppDay(&w, &before) {
				t.Fatalf("step %d: set(window()) = %+v, was %+v", step, w, before)
			}
		}
		compareDay(t, step, &w, &m, now)
		if t.Failed() {
			return
		}
	}
}

func compareDay(t *testing.T, step int, w *AppDay, m *dayModel, now time.Time) {
	t.Helper()
	if got, want := w.empty(), len(m.hours) == 0; got != want {
		t.Errorf("step %d: empty() = %v, want %v", step, got, want)
	}
	newest := time.Unix(m.newest*3600, 0)
	for _, at := range []time.Time{now, newest} {
		for _, off := range []time.Duration{-24, -1, 0, 23} {
			at := at.Add(off * time.Hour)
			if got, want := w.Sum(at), m.sum(at); got != want {
				t.Errorf("step %d: sum at %v = %+v, want %+v", step, at, got, want)
			}
		}
	}
	if got, want := *w.Window(), m.window(); got != want {
		t.Errorf("step %d: window() = %+v, want %+v", step, got, want)
	}
	var total dayTotal
	for i := range w.hours {
		s := w.slot(i)
		total.add(&s)
	}
	if w.total != total {
		t.Errorf("step %d: the kept total is %+v, the slots add up to %+v", step, w.total, total)
	}
	if got, want := encodeAppDay(w), encodeDay(w.Window()); !bytes.Equal(got, want) {
		t.Errorf("step %d: Encode wrote %x, the window as a Day %x", step, got, want)
	}
}

// encodeAppDay is w's encoding; encodeDay d's, through the Counts a
// decoded day holds.
func encodeAppDay(w *AppDay) []byte {
	e := statefile.NewEncoder(nil)
	w.Encode(e)
	return e.Bytes()
}

func encodeDay(d *Day) []byte {
	e := statefile.NewEncoder(nil)
	fd := FileDay(d)
	e.Day(&fd)
	return e.Bytes()
}

// An app's window writes its hours from its integers the bytes a decoded
// day's Counts make, up to the largest sum of response times a slot holds
// (whose seconds a float64 holds to the microsecond).
func TestAppDayEncodeIsDayEncode(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for n := range 2000 {
		var w AppDay
		var slots [24]appDaySlot
		for i := range slots {
			if r.IntN(4) == 0 {
				continue // an hour without checks
			}
			s := appDaySlot{up: uint16(r.Uint32()), down: uint16(r.IntN(3)), unavail: uint16(r.IntN(3))}
			s.rtN = s.up - uint16(r.IntN(2))
			us := []uint64{maxRTMicros, maxRTMicros - 1, r.Uint64N(maxRTMicros + 1), r.Uint64N(1 << 30)}[n%4]
			s.setRTMicros(us)
			slots[i] = s
		}
		w.newest = int32(494_000 + n)
		w.setSlots(&slots)
		w.retotal()
		if got, want := encodeAppDay(&w), encodeDay(w.Window()); !bytes.Equal(got, want) {
			t.Fatalf("window %d: Encode wrote %x, the window as a Day %x", n, got, want)
		}
	}
}

// sameAppDay reports whether a and b hold the same: their odd parts are
// compared by what they hold.
func sameAppDay(a, b *AppDay) bool {
	var oa, ob oddHours
	if a.odd != nil {
		oa = *a.odd
	}
	if b.odd != nil {
		ob = *b.odd
	}
	return a.hours == b.hours && a.newest == b.newest && a.total == b.total && oa == ob
}

// clockStep is how far the clock moves before a check: mostly forward, up
// to 3.4 hours; back by up to 24.3 hours; forward by 24 to 55 hours; or
// back by 24 to 55 hours.
func clockStep(b byte) time.Duration {
	switch {
	case b < 128:
		return time.Duration(b) * 97 * time.Second
	case b < 192:
		return -time.Duration(b-128) * 23 * time.Minute
	case b < 224:
		return time.Duration(24+b-192) * time.Hour
	}
	return -time.Duration(24+b-224) * time.Hour
}

// responseTime is a response time to the nanosecond, or a negative one, or
// one so long that a sum saturates at once.
func responseTime(a, b byte) time.Duration {
	switch a {
	case 254:
		return -5 * time.Millisecond
	case 255:
		return 1 << 55 // eight of them overflow a slot's sum
	}
	return time.Duration(a)*time.Millisecond + time.Duration(b)*3517
}

// pastCounts are the Counts of an hour filled in from elsewhere: mostly
// small, some past 16 bits, some negative or with a nonsense sum.
func pastCounts(o *byteReader) Counts {
	scale := []int64{1, 1, 1, 1000, -1, 0}[o.next()%6]
	c := Counts{Up: scale * int64(o.next()), Down: scale * int64(o.next()),
		Unavailable: int64(o.next() % 4), RTN: scale * int64(o.next())}
	switch us := int64(o.next()); us {
	case 255:
		c.RTSum = math.NaN()
	case 254:
		c.RTSum = 1e7 // past 32 bits of microseconds
	default:
		c.RTSum = float64(us*us*us) / 1e6
	}
	return c
}

// storedWindow is a Day as a store gives it back: hours around base,
// some beyond what an int32 holds, each in its slot.
func storedWindow(o *byteReader, base int64) Day {
	var d Day
	for range o.next() % 30 {
		hour := base + int64(int8(o.next()))
		if o.next() == 0 {
			hour += 1 << 40
		}
		d[mod(hour, 24)].Hour, d[mod(hour, 24)].C = hour, pastCounts(o)
	}
	return d
}

type byteReader struct{ b []byte }

// next is the next byte, 0 past the end.
func (r *byteReader) next() byte {
	if len(r.b) == 0 {
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

// dayModel is what an AppDay means, kept plainly: the Counts of each
// hour within a day of the newest, in wide integers, saturated only when
// read.
type dayModel struct {
	newest int64
	hours  map[int64]modelHour
}

type modelHour struct{ up, down, unavail, rtN, rtMicros int64 }

func (m *dayModel) add(t time.Time, s Status, rt time.Duration) {
	h := t.Unix() / 3600
	if len(m.hours) == 0 || h <= m.newest-24 {
		m.restart(h)
	}
	m.advance(h)
	c := m.hours[h]
	switch s {
	case Up:
		c.up++
	case Down:
		c.down++
	default:
		c.unavail++
	}
	us := int64(rt / time.Microsecond) // rt is a WindowRT
	if s != Unavailable && c.rtN < math.MaxUint16 && min(c.rtMicros, maxRTMicros)+us <= maxRTMicros {
		c.rtN++
		c.rtMicros += us
	}
	m.hours[h] = c
}

func (m *dayModel) restart(h int64) {
	m.newest = h
	clear(m.hours)
}

func (m *dayModel) advance(h int64) {
	if h <= m.newest {
		return
	}
	m.newest = h
	for hr := range m.hours {
		if hr <= h-24 {
			delete(m.hours, hr)
		}
	}
}

func (m *dayModel) addHour(h int64, c Counts) {
	mc, ok := modelCounts(c)
	switch {
	case !ok || h != int64(int32(h)):
		return
	case len(m.hours) == 0:
		m.restart(h)
	case h <= m.newest-24:
		return
	}
	m.advance(h)
	m.hours[h] = m.hours[h].plus(mc)
}

func (m *dayModel) set(d *Day) {
	clear(m.hours)
	found := false
	for i := range d {
		if _, ok := modelCounts(d[i].C); ok && d[i].Hour == int64(int32(d[i].Hour)) && (!found || d[i].Hour > m.newest) {
			m.newest, found = d[i].Hour, true
		}
	}
	for i := range d {
		if mc, ok := modelCounts(d[i].C); ok && found && d[i].Hour > m.newest-24 && d[i].Hour <= m.newest {
			m.hours[d[i].Hour] = m.hours[d[i].Hour].plus(mc)
		}
	}
}

// modelCounts is c with what no slot can hold taken out: negative Counts,
// and a sum that is not a number; ok is whether it Counts any check.
func modelCounts(c Counts) (mc modelHour, ok bool) {
	mc = modelHour{up: max(c.Up, 0), down: max(c.Down, 0), unavail: max(c.Unavailable, 0),
		rtN: max(c.RTN, 0)}
	if c.RTSum > 0 {
		mc.rtMicros = int64(math.Round(c.RTSum * 1e6))
	}
	return mc, mc.up+mc.down+mc.unavail > 0
}

func (a modelHour) plus(b modelHour) modelHour {
	return modelHour{a.up + b.up, a.down + b.down, a.unavail + b.unavail, a.rtN + b.rtN, a.rtMicros + b.rtMicros}
}

// Counts is what a slot of 16-bit Counts and a 48-bit sum reads as.
func (a modelHour) counts() Counts {
	c16 := func(n int64) int64 { return min(n, math.MaxUint16) }
	return Counts{Up: c16(a.up), Down: c16(a.down), Unavailable: c16(a.unavail), RTN: c16(a.rtN),
		RTSum: float64(min(a.rtMicros, maxRTMicros)) / 1e6}
}

// sum adds the hours in (h-24, h], oldest first.
func (m *dayModel) sum(at time.Time) Counts {
	h := at.Unix() / 3600
	var c Counts
	for hr := h - 23; hr <= h; hr++ {
		if mh, ok := m.hours[hr]; ok {
			c.Merge(mh.counts())
		}
	}
	// The window adds whole microseconds, and converts their total once.
	var us int64
	for hr := h - 23; hr <= h; hr++ {
		if mh, ok := m.hours[hr]; ok {
			us += min(mh.rtMicros, maxRTMicros)
		}
	}
	c.RTSum = float64(us) / 1e6
	return c
}

func (m *dayModel) window() Day {
	var d Day
	for hr, mh := range m.hours {
		d[mod(hr, 24)].Hour, d[mod(hr, 24)].C = hr, mh.counts()
	}
	return d
}

// Without the clock going back, the window answers as the per-slot
// Day it replaces, but for float rounding of the response times'
// sum (now of whole microseconds).
func TestAppDayWindowAnswersAsDayWindow(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		var compact AppDay
		var plain Day
		now := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
		for i := range r.IntN(500) {
			now = now.Add(time.Duration(r.IntN(256)) * 97 * time.Second) // up to ~7h a step
			s, rt := statusCodes[r.IntN(3)], time.Duration(r.IntN(5_000_000))*time.Microsecond
			plain.Add(now, s, rt, compact.Add(now, s, rt))
			for _, at := range []time.Time{now, now.Add(5 * time.Hour), now.Add(23 * time.Hour), now.Add(25 * time.Hour)} {
				got, want := compact.Sum(at), plain.Sum(at)
				if math.Abs(got.RTSum-want.RTSum) > 1e-9 {
					t.Fatalf("step %d, sum at +%v: rtSum %v, want %v", i, at.Sub(now), got.RTSum, want.RTSum)
				}
				got.RTSum = want.RTSum
				if got != want {
					t.Fatalf("step %d, sum at +%v: %+v, want %+v", i, at.Sub(now), got, want)
				}
			}
		}
	}
}

// The cases the ring decides, by name.
func TestAppDayWindowRing(t *testing.T) {
	at := time.Date(2026, 11, 22, 10, 30, 0, 0, time.UTC)
	hour := at.Unix() / 3600
	tests := []struct {
		name string
		run  func(w *AppDay)
		now  time.Time
		want Counts
	}{
		{"an hour back keeps the day", func(w *AppDay) {
			w.Add(at, Up, time.Millisecond)
			w.Add(at.Add(-time.Hour), Down, 3*time.Millisecond)
		}, at, Counts{Up: 1, Down: 1, RTN: 2, RTSum: 0.004}},
		{"a day back starts afresh", func(w *AppDay) {
			w.Add(at, Up, time.Millisecond)
			w.Add(at.Add(-24*time.Hour), Down, 3*time.Millisecond)
			w.Add(at.Add(-23*time.Hour), Unavailable, 0)
		}, at.Add(-time.Hour), Counts{Down: 1, Unavailable: 1, RTN: 1, RTSum: 0.003}},
		{"a gap of a day empties it", func(w *AppDay) {
			w.Add(at, Up, time.Millisecond)
			w.Add(at.Add(24*time.Hour), Down, 3*time.Millisecond)
		}, at.Add(24 * time.Hour), Counts{Down: 1, RTN: 1, RTSum: 0.003}},
		{"a past hour in the day counts", func(w *AppDay) {
			w.Add(at, Up, time.Millisecond)
			w.AddHour(hour-23, Counts{Up: 5, Down: 2})
		}, at, Counts{Up: 6, Down: 2, RTN: 1, RTSum: 0.001}},
		{"a past hour before the day is dropped", func(w *AppDay) {
			w.Add(at, Up, time.Millisecond)
			w.AddHour(hour-24, Counts{Up: 5, Down: 2})
		}, at.Add(-time.Hour), Counts{}},
		{"a later past hour moves the day on", func(w *AppDay) {
			w.Add(at, Up, time.Millisecond)
			w.AddHour(hour+24, Counts{Up: 5})
		}, at, Counts{}},
		{"response times sum past 32 bits", func(w *AppDay) {
			w.Add(at, Up, 3000*time.Second)
			w.Add(at, Up, 3000*time.Second)
		}, at, Counts{Up: 2, RTN: 2, RTSum: 6000}},
		{"a response time that would overflow the sum is not counted", func(w *AppDay) {
			w.Add(at, Up, (maxRTMicros-5)*time.Microsecond)
			if w.Add(at, Up, 6*time.Microsecond) {
				panic("the overflowing response time was counted")
			}
			if !w.Add(at, Down, 5*time.Microsecond) {
				panic("a response time that fits was not counted")
			}
		}, at, Counts{Up: 2, Down: 1, RTN: 2, RTSum: maxRTMicros / 1e6}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var w AppDay
			tt.run(&w)
			if diff := cmp.Diff(tt.want, w.Sum(tt.now)); diff != "" {
				t.Errorf("sum (-want +got):\n%s", diff)
			}
		})
	}
}

// There is one window per app: its size is what 10,000 apps pay 10,000
// times.
func TestAppDayWindowSize(t *testing.T) {
	if s := unsafe.Sizeof(AppDay{}); s > 232 {
		t.Errorf("AppDay is %d bytes, want at most 232", s)
	}
}

// Counts past 16 bits saturate, in add and in set, rather than wrap.
func TestAppDayWindowSaturates(t *testing.T) {
	var w AppDay
	at := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	for range 70_000 {
		w.Add(at, Up, time.Millisecond)
	}
	c := w.Sum(at)
	if c.Up != 65535 || c.RTN != 65535 || math.Abs(c.RTSum-65.535) > 1e-6 {
		t.Errorf("after 70,000 checks in an hour: %+v, want up and rtN at 65535, rtSum 65.535", c)
	}
	var d Day
	d.AddHour(at.Unix()/3600, Counts{Up: 1 << 40, Down: -3, Unavailable: 7, RTSum: 2, RTN: 1 << 20})
	w.Set(&d)
	if got, want := w.Sum(at), (Counts{Up: 65535, Unavailable: 7, RTSum: 2, RTN: 65535}); got != want {
		t.Errorf("set of large counts: %+v, want %+v", got, want)
	}
}

// statusCodes are the statuses a check can have, for drawing one at random.
var statusCodes = [...]Status{Up, Down, Unavailable}

// A copy of a window is a copy (a save's cut keeps one while checks go
// on): what the window counts after, odd hours too, leaves the copy as it
// was.
func TestAppDayCopyIsACopy(t *testing.T) {
	at := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	var w AppDay
	w.Add(at, Up, time.Millisecond)
	w.Add(at, Down, time.Millisecond)
	saved := w
	want := *saved.Window()
	w.Add(at, Down, time.Millisecond)
	w.Add(at, Unavailable, 0)
	w.Add(at.Add(time.Hour), Up, time.Millisecond)
	w.AddHour(at.Unix()/3600-1, Counts{Up: 3, Down: 1})
	w.Redate(time.Hour)
	if diff := cmp.Diff(want, *saved.Window()); diff != "" {
		t.Errorf("the copy changed with the window (-want +got):\n%s", diff)
	}
	if got := saved.Sum(at); got != (Counts{Up: 1, Down: 1, RTSum: 0.002, RTN: 2}) {
		t.Errorf("the copy sums %+v", got)
	}
}
