package period_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/availmon/availmon/period"
)

// split cuts r by step in loc and writes the parts out.
func split(t *testing.T, r period.Range, step string, loc *time.Location) []span {
	t.Helper()
	var got []span
	for part := range r.Split(mustStep(t, step), loc) {
		got = append(got, spanOf(part, loc))
	}
	return got
}

// lengths counts the parts of each length.
func lengths(parts []span) map[time.Duration]int {
	n := map[time.Duration]int{}
	for _, p := range parts {
		n[p.Length]++
	}
	return n
}

func TestSplitDays(t *testing.T) {
	berlin := zone(t, "Europe/Berlin")
	got := split(t, mustParse(t, "2026-03").In(berlin), "1d", berlin)
	if len(got) != 31 {
		t.Fatalf("March in Berlin has %d days, want 31: %v", len(got), got)
	}
	want := span{"2026-03-29T00:00:00+01:00", "2026-03-30T00:00:00+02:00", 23 * time.Hour}
	if diff := cmp.Diff(want, got[28]); diff != "" {
		t.Errorf("March 29th (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[time.Duration]int{24 * time.Hour: 30, 23 * time.Hour: 1}, lengths(got)); diff != "" {
		t.Errorf("day lengths (-want +got):\n%s", diff)
	}
	got = split(t, mustParse(t, "2026-10").In(berlin), "24h", berlin)
	if diff := cmp.Diff(map[time.Duration]int{24 * time.Hour: 30, 25 * time.Hour: 1}, lengths(got)); diff != "" {
		t.Errorf("October day lengths (-want +got):\n%s", diff)
	}
}

// TestSplitWindow cuts a rolling window, which starts and ends between
// midnights, into local days: the first and last parts are partial.
func TestSplitWindow(t *testing.T) {
	kathmandu := zone(t, "Asia/Kathmandu")
	w, err := period.ParseWindow("2d")
	if err != nil {
		t.Fatal(err)
	}
	r := w.Ending(utc(t, "2026-11-25T12:00:00Z"))
	want := []span{
		{"2026-11-23T17:45:00+05:45", "2026-11-24T00:00:00+05:45", 6*time.Hour + 15*time.Minute},
		{"2026-11-24T00:00:00+05:45", "2026-11-25T00:00:00+05:45", 24 * time.Hour},
		{"2026-11-25T00:00:00+05:45", "2026-11-25T17:45:00+05:45", 17*time.Hour + 45*time.Minute},
	}
	if diff := cmp.Diff(want, split(t, r, "1d", kathmandu)); diff != "" {
		t.Errorf("Split (-want +got):\n%s", diff)
	}
}

func TestSplitWeeks(t *testing.T) {
	berlin := zone(t, "Europe/Berlin")
	got := split(t, mustParse(t, "2026-11").In(berlin), "1w", berlin)
	want := []span{
		{"2026-11-01T00:00:00+01:00", "2026-11-02T00:00:00+01:00", 24 * time.Hour},
		{"2026-11-02T00:00:00+01:00", "2026-11-09T00:00:00+01:00", 7 * 24 * time.Hour},
		{"2026-11-09T00:00:00+01:00", "2026-11-16T00:00:00+01:00", 7 * 24 * time.Hour},
		{"2026-11-16T00:00:00+01:00", "2026-11-23T00:00:00+01:00", 7 * 24 * time.Hour},
		{"2026-11-23T00:00:00+01:00", "2026-11-30T00:00:00+01:00", 7 * 24 * time.Hour},
		{"2026-11-30T00:00:00+01:00", "2026-12-01T00:00:00+01:00", 24 * time.Hour},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Split (-want +got):\n%s", diff)
	}
}

func TestSplitHours(t *testing.T) {
	h, h30 := time.Hour, 30*time.Minute
	tests := []struct {
		name, zone, day, step string
		lengths               map[time.Duration]int
		// the parts that are not one step long, or all parts if few
		odd []span
	}{
		{"UTC", "UTC", "2026-11-25", "1h", map[time.Duration]int{h: 24}, nil},
		{"Berlin summer time begins", "Europe/Berlin", "2026-03-29", "1h", map[time.Duration]int{h: 23}, nil},
		{"Berlin summer time ends", "Europe/Berlin", "2026-10-25", "1h", map[time.Duration]int{h: 25}, nil},
		{"Kathmandu", "Asia/Kathmandu", "2026-11-25", "1h", map[time.Duration]int{h: 24}, nil},
		{"Kathmandu 45m", "Asia/Kathmandu", "2026-11-25", "45m", map[time.Duration]int{45 * time.Minute: 32}, nil},
		{"Lord Howe half an hour forward", "Australia/Lord_Howe", "2026-10-04", "1h",
			map[time.Duration]int{h: 23, h30: 1},
			[]span{{"2026-10-04T02:30:00+11:00", "2026-10-04T03:00:00+11:00", h30}}},
		{"Lord Howe half an hour back", "Australia/Lord_Howe", "2026-04-05", "1h",
			map[time.Duration]int{h: 23, h + h30: 1},
			[]span{{"2026-04-05T01:00:00+11:00", "2026-04-05T02:00:00+10:30", h + h30}}},
		{"Lord Howe in half hours", "Australia/Lord_Howe", "2026-04-05", "30m", map[time.Duration]int{h30: 49}, nil},
		{"Berlin in quarter hours", "Europe/Berlin", "2026-10-25", "15m", map[time.Duration]int{15 * time.Minute: 100}, nil},
		{"Berlin in 6h", "Europe/Berlin", "2026-10-25", "6h",
			map[time.Duration]int{6 * h: 3, 7 * h: 1},
			[]span{{"2026-10-25T00:00:00+02:00", "2026-10-25T06:00:00+01:00", 7 * h}}},
		{"Havana skips midnight", "America/Havana", "2026-03-08", "1h", map[time.Duration]int{h: 23}, nil},
		{"Havana in 12h, midnight twice", "America/Havana", "2026-11-01", "12h",
			map[time.Duration]int{h: 1, 12 * h: 2},
			[]span{
				{"2026-11-01T00:00:00-04:00", "2026-11-01T00:00:00-05:00", h},
				{"2026-11-01T00:00:00-05:00", "2026-11-01T12:00:00-05:00", 12 * h},
				{"2026-11-01T12:00:00-05:00", "2026-11-02T00:00:00-05:00", 12 * h},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			loc := zone(t, tt.zone)
			step := mustStep(t, tt.step)
			length, err := time.ParseDuration(tt.step)
			if err != nil {
				t.Fatal(err)
			}
			got := split(t, mustParse(t, tt.day).In(loc), tt.step, loc)
			if diff := cmp.Diff(tt.lengths, lengths(got)); diff != "" {
				t.Errorf("part lengths (-want +got):\n%s", diff)
			}
			odd := slices.DeleteFunc(slices.Clone(got), func(s span) bool { return s.Length == length })
			if len(got) <= 3 {
				odd = got
			}
			if diff := cmp.Diff(tt.odd, odd, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("parts of another length than %v (-want +got):\n%s", step, diff)
			}
			for _, s := range got {
				if tm, _ := time.Parse("2006-01-02T15:04:05-07:00", s.Start); tm.Unix()%(15*60) != 0 {
					t.Errorf("part %v does not start on a quarter hour of UTC", s)
				}
			}
		})
	}
}

func TestSplitEdges(t *testing.T) {
	t0 := utc(t, "2026-11-25T10:20:30.5Z")
	r := period.Range{Start: t0, End: t0.Add(90 * time.Minute)}
	var whole []period.Range
	for p := range r.Split(period.Step{}, time.UTC) {
		whole = append(whole, p)
	}
	if len(whole) != 1 || !whole[0].Start.Equal(r.Start) || !whole[0].End.Equal(r.End) {
		t.Errorf("zero Step split %v into %v, want it whole", r, whole)
	}
	want := []span{
		{"2026-11-25T10:20:30+00:00", "2026-11-25T11:00:00+00:00", 39*time.Minute + 29*time.Second + 500*time.Millisecond},
		{"2026-11-25T11:00:00+00:00", "2026-11-25T11:50:30+00:00", 50*time.Minute + 30*time.Second + 500*time.Millisecond},
	}
	if diff := cmp.Diff(want, split(t, r, "1h", time.UTC)); diff != "" {
		t.Errorf("Split at fractions of a second (-want +got):\n%s", diff)
	}
	for _, empty := range []period.Range{{Start: t0, End: t0}, {Start: t0, End: t0.Add(-time.Hour)}, {}} {
		if got := split(t, empty, "1h", time.UTC); got != nil {
			t.Errorf("Split(%v) = %v, want nothing", empty, got)
		}
	}
	n := 0
	for range mustParse(t, "2026").In(time.UTC).Split(mustStep(t, "1d"), time.UTC) {
		n++
		if n == 3 {
			break
		}
	}
	if n != 3 {
		t.Errorf("stopping after 3 parts yielded %d", n)
	}
}

func TestParseStep(t *testing.T) {
	for _, s := range []string{"15m", "30m", "45m", "1h", "60m", "1h30m", "2h", "3h", "4h", "6h", "8h", "12h", "1d", "24h", "1w", "7d", "168h"} {
		st, err := period.ParseStep(s)
		if err != nil {
			t.Errorf("ParseStep(%q): %v", s, err)
		} else if st.String() != s {
			t.Errorf("ParseStep(%q).String() = %q", s, st.String())
		}
	}
	const forms = "; allowed: 1d (local days), 1w (ISO weeks) or a multiple of 15m that divides a day, such as 15m, 30m, 1h, 2h, 3h, 4h, 6h, 8h or 12h"
	tests := []struct{ in, want string }{
		{"", `step "": not a duration`},
		{"0", `step "0": not 1d, 1w or a multiple of 15m that divides a day`},
		{"10m", `step "10m": not 1d, 1w or a multiple of 15m that divides a day`},
		{"5h", `step "5h": not 1d, 1w or a multiple of 15m that divides a day`},
		{"2d", `step "2d": not 1d, 1w or a multiple of 15m that divides a day`},
		{"1y", `step "1y": the units y and ms are not accepted`},
		{"900000ms", `step "900000ms": the units y and ms are not accepted`},
		{"-1h", `step "-1h": not a duration`},
		{"1h ", `step "1h ": not a duration`},
		{"1mo", `step "1mo": not a duration`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, err := period.ParseStep(tt.in)
			if !errors.Is(err, period.ErrStep) {
				t.Fatalf("ParseStep(%q) error %v, want ErrStep", tt.in, err)
			}
			if diff := cmp.Diff(tt.want+forms, err.Error()); diff != "" {
				t.Errorf("error text (-want +got):\n%s", diff)
			}
		})
	}
}
