package period_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/availmon/availmon/period"
)

func TestParseWindow(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"1h", time.Hour},
		{"60m", time.Hour},
		{"3600s", time.Hour},
		{"24h", 24 * time.Hour},
		{"1d", 24 * time.Hour},
		{"7d", 7 * 24 * time.Hour},
		{"1w", 7 * 24 * time.Hour},
		{"30d", 30 * 24 * time.Hour},
		{"90d", 90 * 24 * time.Hour},
		{"1h30m", 90 * time.Minute},
		{"1d12h", 36 * time.Hour},
		{"400d", 400 * 24 * time.Hour},
		{"57w1d", 400 * 24 * time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			w, err := period.ParseWindow(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if w.Duration() != tt.want || w.String() != tt.in {
				t.Errorf("ParseWindow(%q) = %v (%q), want %v (%[1]q)", tt.in, w.Duration(), w.String(), tt.want)
			}
		})
	}
}

func TestParseWindowRefuses(t *testing.T) {
	const forms = "; allowed: a duration from 1h to 400d in units w, d, h, m and s, such as 1h, 24h, 7d, 30d or 90d"
	tests := []struct{ in, want string }{
		{"", `window "": not a duration`},
		{"0", `window "0": shorter than 1h`},
		{"59m59s", `window "59m59s": shorter than 1h`},
		{"400d1s", `window "400d1s": longer than 400d`},
		{"58w", `window "58w": longer than 400d`},
		{"1y", `window "1y": the units y and ms are not accepted`},
		{"1h500ms", `window "1h500ms": the units y and ms are not accepted`},
		{"-1h", `window "-1h": not a duration`},
		{"+1h", `window "+1h": not a duration`},
		{" 1h", `window " 1h": not a duration`},
		{"1h ", `window "1h ": not a duration`},
		{"1H", `window "1H": not a duration`},
		{"1.5h", `window "1.5h": not a duration`},
		{"1m1h", `window "1m1h": not a duration`},
		{"2026-11", `window "2026-11": not a duration`},
		{"99999999999999999999h", `window "99999999999999999999h": not a duration`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			w, err := period.ParseWindow(tt.in)
			if err == nil {
				t.Fatalf("ParseWindow(%q) = %v, want an error", tt.in, w)
			}
			if !errors.Is(err, period.ErrWindow) {
				t.Errorf("error %v does not wrap ErrWindow", err)
			}
			if diff := cmp.Diff(tt.want+forms, err.Error()); diff != "" {
				t.Errorf("error text (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWindowEnding checks that a window is elapsed time: 1d across the
// change to summer time is 24 hours, 23 of them on the clock's one day.
func TestWindowEnding(t *testing.T) {
	w, err := period.ParseWindow("1d")
	if err != nil {
		t.Fatal(err)
	}
	berlin := zone(t, "Europe/Berlin")
	now := time.Date(2026, 3, 30, 0, 0, 0, 0, berlin)
	want := span{"2026-03-28T23:00:00+01:00", "2026-03-30T00:00:00+02:00", 24 * time.Hour}
	if diff := cmp.Diff(want, spanOf(w.Ending(now), berlin)); diff != "" {
		t.Errorf("Ending (-want +got):\n%s", diff)
	}
	r := w.Ending(time.Now())
	if r.End != r.End.Round(0) || r.Start != r.Start.Round(0) {
		t.Errorf("Ending keeps a monotonic clock reading: %v", r.End)
	}
}
