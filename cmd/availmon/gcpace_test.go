package main

import (
	"context"
	"testing"
)

func TestGCPercent(t *testing.T) {
	const mb = 1 << 20
	for _, tt := range []struct {
		name       string
		live, scan uint64
		want       int
	}{
		{"nothing measured yet", 0, 0, defaultGOGC},
		{"small heap: unchanged", 45 * mb, 20 * mb, defaultGOGC},
		{"at the floor: unchanged", 64 * mb, 10 * mb, defaultGOGC},
		{"all pointers: unchanged", 500 * mb, 500 * mb, defaultGOGC},
		// 400 days of record at 10,000 apps: the headroom is 32 MB,
		// not 109.
		{"large pointer-free record", 218 * mb, 30 * mb, 14},
		{"pointers above the floor", 400 * mb, 200 * mb, 25},
		{"huge record: bounded below", 4000 * mb, 30 * mb, minGOGC},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := gcPercent(tt.live, tt.scan); got != tt.want {
				t.Errorf("gcPercent(%d MB, %d MB) = %d, want %d", tt.live/mb, tt.scan/mb, got, tt.want)
			}
		})
	}
}

// The pacer returns when its context ends.
func TestPaceGCStops(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		paceGC(ctx)
	}()
	cancel()
	<-done
}
