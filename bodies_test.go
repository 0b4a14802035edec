package availmon

import (
	"bytes"
	"testing"

	"github.com/availmon/availmon/internal/cachedbody"
)

// TestLargeEnvelopeHeadEqualsWhole: encoding the large answers an element at
// a time gives the bytes encoding/json gives for the whole value, whatever
// the size hint.
func TestLargeEnvelopeHeadEqualsWhole(t *testing.T) {
	m, _ := largeMonitor(t, 300, 7, 3)
	s := m.snap.Load()
	apps := make([]appJSON, len(s.apps))
	for i := range apps {
		apps[i] = s.appJSON(i)
	}
	lazy := s.summary()
	summary := summaryJSON{
		TotalRequests: lazy.head.TotalRequests, TotalErrors: lazy.head.TotalErrors,
		AverageResponseTime: lazy.head.AverageResponseTime, UptimePercentage: lazy.head.UptimePercentage,
	}
	for i := range s.apps {
		summary.Apps = append(summary.Apps, s.appSummary(i))
	}
	for i := range s.locs {
		summary.Locations = append(summary.Locations, s.locationSummary(i))
	}
	noApps := cachedbody.LazyList[appJSON]{Elem: func(int) appJSON { panic("no element") }}
	for _, tc := range []struct {
		name  string
		v     any
		whole any // what encoding/json is given, when not v
	}{
		{"apps", apps, nil},
		{"apps made as written", cachedbody.LazyList[appJSON]{N: len(s.apps), Elem: s.appJSON}, apps},
		{"no apps", []appJSON{}, nil},
		{"no apps made as written", noApps, []appJSON{}},
		{"nil apps", []appJSON(nil), nil},
		{"summary made as written", lazy, summary},
		{"empty summary", lazySummary{apps: cachedbody.LazyList[appSummaryJSON]{}, locations: cachedbody.LazyList[locationSummaryItemJSON]{}},
			summaryJSON{Apps: []appSummaryJSON{}, Locations: []locationSummaryItemJSON{}}},
		{"other", locationJSON{Name: "x", Apps: []string{"a"}}, nil},
	} {
		whole := tc.whole
		if whole == nil {
			whole = tc.v
		}
		want := envelopeHead(whole)
		got := largeEnvelope(tc.v)
		if !bytes.Equal(got.Head(), want) || got.Len() != len(want) {
			t.Fatalf("%s:\n got %.300s\nwant %.300s", tc.name, got.Head(), want)
		}
		if got.ETag(nil, false) != cachedbody.New(want).ETag(nil, false) {
			t.Errorf("%s: ETag %s, want that of the bytes in one piece, %s", tc.name, got.ETag(nil, false), cachedbody.New(want).ETag(nil, false))
		}
	}
}
