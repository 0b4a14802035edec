package promexport_test

import (
	"bytes"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/common/expfmt"

	"github.com/availmon/availmon/promexport"
)

// encodeFormats are the formats /metrics negotiates that EncodeSnapshot
// writes availmon_up in itself, with each escaping= a client can ask for,
// and one it does not (protobuf).
var encodeFormats = []expfmt.Format{
	expfmt.FmtText + "; escaping=underscores",
	expfmt.FmtText + "; escaping=allow-utf-8",
	expfmt.FmtText + "; escaping=dots",
	expfmt.FmtText + "; escaping=values",
	expfmt.FmtText,
	expfmt.FmtOpenMetrics_1_0_0 + "; escaping=underscores",
	expfmt.FmtOpenMetrics_1_0_0 + "; escaping=allow-utf-8",
	expfmt.FmtOpenMetrics_0_0_1 + "; escaping=underscores",
	expfmt.FmtProtoDelim + "; escaping=underscores",
}

// gatherEncoded is the way EncodeSnapshot replaces: every family through a
// registry and expfmt's encoder.
func gatherEncoded(e *promexport.Exporter, s *promexport.Snapshot, f expfmt.Format) ([]byte, error) {
	mfs, err := e.GatherSnapshot(s)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := expfmt.NewEncoder(&buf, f)
	for _, mf := range mfs {
		if err := enc.Encode(mf); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

// compareEncodings fails t unless EncodeSnapshot gives the bytes (or the
// failure) of gatherEncoded in every format of fs.
func compareEncodings(t *testing.T, e *promexport.Exporter, s *promexport.Snapshot, fs []expfmt.Format) {
	t.Helper()
	for _, f := range fs {
		want, wantErr := gatherEncoded(e, s, f)
		var got bytes.Buffer
		err := e.EncodeSnapshot(&got, s, f)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("%s: error %v, want %v", f, err, wantErr)
		}
		if diff := cmp.Diff(string(want), got.String()); diff != "" {
			t.Fatalf("%s: EncodeSnapshot differs from a gather (-want +got):\n%s", f, diff)
		}
	}
}

func labelledExporter(s *promexport.Snapshot, labels ...string) *promexport.Exporter {
	return promexport.New(promexport.Options{
		Snapshot:     func() *promexport.Snapshot { return s },
		Interval:     func() time.Duration { return 30 * time.Second },
		ExportLabels: labels,
	})
}

// Label names sort around app and location: a_team before app, bucket
// between, zone after; the series carry their values in that order.
var oddLabels = []string{"zone", "bucket", "a_team"}

func oddSnapshot() *promexport.Snapshot {
	s := knownSnapshot()
	s.Apps = []promexport.App{
		{Name: "checkout", Location: "Tel Aviv", Status: "up", Labels: []string{"eu", "b1", "payments"}},
		{Name: `say "hi"`, Location: "Tel Aviv", Status: "down", Labels: []string{`"`, `\`, "\n"}},
		{Name: `back\slash`, Location: `C:\`, Status: "up", Labels: []string{`\\n`, `\"`, "a\nb\"c\\d"}},
		{Name: "new\nline", Location: "Tel Aviv", Status: "up", Labels: []string{"", "", ""}},
		{Name: "ünïcödé 日本", Location: "Zürich", Status: "down", Labels: []string{"🙂", "ß", "\u00a0"}},
		{Name: "checkout", Location: "Frankfurt", Status: "up", Labels: []string{"eu", "b1", "payments"}},
		{Name: "checkout", Location: "Frankfurt ", Status: "down", Labels: []string{"", "b1", ""}},
		{Name: "billing", Location: "Frankfurt", Status: "unavailable", Backend: "main", Labels: []string{"eu", "", ""}},
		{Name: `say "hi"`, Location: "Frankfurt", Status: "unavailable", Backend: "a\"b\\c\nd", Labels: []string{`"`, `\`, "\n"}},
		{Name: "no backend", Location: "Frankfurt", Status: "unavailable", Labels: []string{"", "", ""}},
		{Name: "in maintenance", Location: "Frankfurt", Status: "up", Maintenance: true, Labels: []string{"", "", "ops"}},
		{Name: "in maintenance", Location: "Tel Aviv", Status: "unavailable", Backend: "http", Maintenance: true, Labels: []string{"", "", "ops"}},
		{Name: "", Location: "", Status: "up", Labels: []string{"", "", ""}},
		{Name: "odd status", Location: "Tel Aviv", Status: "Up", Labels: []string{"", "", ""}},
		{Name: "a", Location: "x", Status: "up", Labels: []string{"1", "", ""}},
		{Name: "a", Location: "x", Status: "up", Labels: []string{"1", "", "0"}},
		{Name: "a", Location: "x", Status: "down", Labels: []string{"0", "", "0"}},
	}
	s.Services = []promexport.Service{
		{Name: "shop", State: "up", LocationsUp: 2, Locs: 2},
		{Name: "ledger", State: "degraded", LocationsUp: 1, Locs: 2},
		{Name: "mail", State: "unavailable", Locs: 1},
	}
	return s
}

// EncodeSnapshot writes availmon_up and availmon_unavailable itself and the
// bytes are a gather's, for statuses up, down, unavailable and unknown,
// maintenance, exported labels in any name order, and names with quotes,
// backslashes, newlines, unicode and empty values.
func TestEncodeSnapshotEqualsGather(t *testing.T) {
	allUnavailable := knownSnapshot()
	for i := range allUnavailable.Apps {
		allUnavailable.Apps[i].Status = "unavailable"
	}
	for _, tt := range []struct {
		name   string
		s      *promexport.Snapshot
		labels []string
	}{
		{"known", knownSnapshot(), nil},
		{"odd names and labels", oddSnapshot(), oddLabels},
		{"no app known", allUnavailable, nil},
		{"empty", &promexport.Snapshot{}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := labelledExporter(tt.s, tt.labels...)
			if !promexport.WritesUpItself(e, tt.s) {
				t.Fatal("EncodeSnapshot would gather availmon_up: nothing is compared")
			}
			compareEncodings(t, e, tt.s, encodeFormats)
		})
	}
}

// What a registry refuses, EncodeSnapshot leaves to it, and fails alike:
// a label value that is not UTF-8, two series alike, a wrong number of
// labels, or label names NewDesc refuses.
func TestEncodeSnapshotFailsAsGather(t *testing.T) {
	for _, tt := range []struct {
		name   string
		apps   []promexport.App
		labels []string
	}{
		{"not UTF-8", []promexport.App{{Name: "bad\xff", Location: "x", Status: "up"}}, nil},
		{"label not UTF-8", []promexport.App{{Name: "a", Location: "x", Status: "down", Labels: []string{"\xc3"}}}, []string{"team"}},
		{"twice", []promexport.App{{Name: "a", Location: "x", Status: "up"}, {Name: "a", Location: "x", Status: "down"}}, nil},
		{"labels missing", []promexport.App{{Name: "a", Location: "x", Status: "up"}}, []string{"team"}},
		{"label name twice", []promexport.App{{Name: "a", Location: "x", Status: "up", Labels: []string{"1", "2"}}}, []string{"team", "team"}},
		{"reserved label name", []promexport.App{{Name: "a", Location: "x", Status: "up", Labels: []string{"1"}}}, []string{"__team"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := &promexport.Snapshot{Apps: tt.apps}
			e := labelledExporter(s, tt.labels...)
			if promexport.WritesUpItself(e, s) {
				t.Fatal("EncodeSnapshot would write availmon_up itself")
			}
			for _, f := range encodeFormats {
				if _, err := gatherEncoded(e, s, f); err == nil {
					t.Fatalf("%s: a gather does not fail", f)
				}
				var buf bytes.Buffer
				if err := e.EncodeSnapshot(&buf, s, f); err == nil {
					t.Errorf("%s: EncodeSnapshot does not fail", f)
				}
			}
		})
	}
}

// promtool finds nothing to say about odd names and labels.
func TestEncodeSnapshotPromtool(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("promtool is not installed")
		}
		t.Skip("promtool is not installed")
	}
	s := oddSnapshot()
	var buf bytes.Buffer
	if err := labelledExporter(s, oddLabels...).EncodeSnapshot(&buf, s, expfmt.FmtText); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = &buf
	out, err := cmd.CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}

// FuzzEncodeSnapshot compares EncodeSnapshot with a gather over any app
// names, locations and label values: equal bytes, or both failing.
func FuzzEncodeSnapshot(f *testing.F) {
	f.Add("checkout", "Tel Aviv", "eu", "search", "Tel Aviv", "", uint8(0))
	f.Add(`say "hi"`, `C:\`, "a\nb", `say "hi"`, `C:\`, "a\nb", uint8(1))
	f.Add("ünï", "日本", "🙂", "", "", "", uint8(5))
	f.Add("bad\xff", "x", "", "a", "x", "\xc3", uint8(2))
	f.Fuzz(func(t *testing.T, name1, loc1, label1, name2, loc2, label2 string, statuses uint8) {
		status := []string{"up", "down", "unavailable", ""}
		s := knownSnapshot()
		s.Apps = []promexport.App{
			{Name: name1, Location: loc1, Status: status[statuses&3], Backend: label2, Labels: []string{label1}},
			{Name: name2, Location: loc2, Status: status[statuses>>2&3], Backend: loc1, Labels: []string{label2}},
			{Name: name1, Location: loc2, Status: status[statuses>>4&3], Labels: []string{label2}, Maintenance: statuses&64 != 0},
		}
		// The two ways escaping differs; every escaping= is the same
		// (TestEncodeSnapshotEqualsGather).
		compareEncodings(t, labelledExporter(s, "team"), s, []expfmt.Format{expfmt.FmtText, expfmt.FmtOpenMetrics_1_0_0})
	})
}
