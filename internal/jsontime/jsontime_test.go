package jsontime

import (
	"encoding/json"
	"testing"
	"time"
)

// AppendQuoted writes what AppendFormat writes with Format, in
// UTC, for any instant.
func TestAppendQuotedTime(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip(err)
	}
	for _, tm := range []time.Time{
		time.Date(2026, 11, 26, 3, 4, 5, 6_789_000, time.UTC),
		time.Date(2026, 3, 29, 1, 59, 59, 999_999_999, berlin),
		time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999_000_000, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-1, 6, 1, 0, 0, 0, 0, time.UTC),
		time.Unix(1_700_000_000, 123_456_789).In(time.FixedZone("x", -90*60)),
	} {
		if got, want := string(AppendQuoted(nil, tm)), `"`+tm.UTC().Format(Format)+`"`; got != want {
			t.Errorf("%v: %s, want %s", tm, got, want)
		}
	}
}

func FuzzAppendQuotedTime(f *testing.F) {
	f.Add(int64(1_700_000_000), int64(123_456_789))
	f.Add(int64(-62_135_596_800), int64(0))
	f.Fuzz(func(t *testing.T, sec, nsec int64) {
		tm := time.Unix(sec, nsec)
		if got, want := string(AppendQuoted(nil, tm)), `"`+tm.UTC().Format(Format)+`"`; got != want {
			t.Errorf("%v: %s, want %s", tm, got, want)
		}
	})
}

// BenchmarkJSONTime is one timestamp through encoding/json, as every app's
// last check is encoded once per snapshot.
func BenchmarkJSONTime(b *testing.B) {
	v := struct {
		T Time `json:"t"`
	}{Time(time.Date(2026, 11, 26, 3, 4, 5, 6_789_000, time.UTC))}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(v); err != nil {
			b.Fatal(err)
		}
	}
}
