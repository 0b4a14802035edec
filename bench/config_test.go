package main

import (
	"testing"
	"time"

	"github.com/availmon/availmon/config"
)

// The configuration the bench gives availmon is one availmon takes, its
// objectives included.
func TestAvailmonConfig(t *testing.T) {
	cfg, err := config.Parse("bench.yaml", []byte(availmonConfig("http://127.0.0.1:9090", 10_000,
		options{locations: 100, history: 100, interval: time.Second, objectives: 1000, saveInterval: time.Minute})),
		func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Apps) != 10_000 || len(cfg.Objectives) != 1000 {
		t.Errorf("%d apps, %d objectives; want 10000, 1000", len(cfg.Apps), len(cfg.Objectives))
	}
}

func TestLastMonth(t *testing.T) {
	for now, want := range map[time.Time]string{
		time.Date(2027, 1, 31, 23, 0, 0, 0, time.UTC):                    "2026-12",
		time.Date(2026, 3, 31, 12, 0, 0, 0, time.UTC):                    "2026-02",
		time.Date(2026, 12, 1, 0, 30, 0, 0, time.FixedZone("+02", 7200)): "2026-10", // 2026-11-30 in UTC
	} {
		if got := lastMonth(now); got != want {
			t.Errorf("lastMonth(%v) = %s, want %s", now, got, want)
		}
	}
}
