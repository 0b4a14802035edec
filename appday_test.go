package availmon

import (
	"math"
	"testing"
	"time"
	"unsafe"
)

// An app's compact window counts exactly as a dayWindow does, over any
// sequence of checks, and converts to the same dayWindow.
func FuzzAppDayWindow(f *testing.F) {
	f.Add([]byte{0, 10, 200, 3, 255, 40, 1, 1, 1, 90})
	f.Fuzz(func(t *testing.T, ops []byte) {
		ops = ops[:min(len(ops), 65535)] // no hour past what 16 bits count
		var compact appDayWindow
		var plain dayWindow
		now := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
		for i, op := range ops {
			now = now.Add(time.Duration(op) * 97 * time.Second) // up to ~7h a step
			s := statusCodes[i%3]
			rt := time.Duration(op) * time.Millisecond
			compact.add(now, s, rt)
			plain.add(now, s, rt)
			for _, at := range []time.Time{now, now.Add(5 * time.Hour), now.Add(23 * time.Hour), now.Add(25 * time.Hour)} {
				if got, want := compact.sum(at), plain.sum(at); got != want {
					t.Fatalf("step %d, sum at +%v: %+v, want %+v", i, at.Sub(now), got, want)
				}
			}
		}
		if got := *compact.window(); got != plain {
			t.Errorf("window() = %+v, want %+v", got, plain)
		}
		var restored appDayWindow
		restored.set(&plain)
		if restored != compact {
			t.Errorf("set(window) = %+v, want %+v", restored, compact)
		}
	})
}

func TestAppDayWindowSize(t *testing.T) {
	if s := unsafe.Sizeof(appDayWindow{}); s != 480 {
		t.Errorf("appDayWindow is %d bytes", s)
	}
}

// Counts past 16 bits saturate, in add and in set, rather than wrap.
func TestAppDayWindowSaturates(t *testing.T) {
	var w appDayWindow
	at := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	for range 70_000 {
		w.add(at, StatusUp, time.Millisecond)
	}
	c := w.sum(at)
	if c.up != 65535 || c.rtN != 65535 || math.Abs(c.rtSum-65.535) > 1e-6 {
		t.Errorf("after 70,000 checks in an hour: %+v, want up and rtN at 65535, rtSum 65.535", c)
	}
	var d dayWindow
	d.addHour(at.Unix()/3600, counts{up: 1 << 40, down: -3, unavailable: 7, rtSum: 2, rtN: 1 << 20})
	w.set(&d)
	if got, want := w.sum(at), (counts{up: 65535, unavailable: 7, rtSum: 2, rtN: 65535}); got != want {
		t.Errorf("set of large counts: %+v, want %+v", got, want)
	}
}
