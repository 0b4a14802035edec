package availmon

import (
	"testing"
	"time"
	"unsafe"
)

// An app's compact window counts exactly as a dayWindow does, over any
// sequence of checks, and converts to the same dayWindow.
func FuzzAppDayWindow(f *testing.F) {
	f.Add([]byte{0, 10, 200, 3, 255, 40, 1, 1, 1, 90})
	f.Fuzz(func(t *testing.T, ops []byte) {
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
	if s := unsafe.Sizeof(appDayWindow{}); s != 768 {
		t.Errorf("appDayWindow is %d bytes", s)
	}
}
