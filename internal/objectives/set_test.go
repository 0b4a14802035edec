package objectives

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/availmon/availmon/objective"
)

// fleet is apps a and b in L1, c in L2, service S; a and b carry
// team=shop, c team=ops.
func fleet() Fleet {
	labels := []map[string]string{{"team": "shop"}, {"team": "shop"}, {"team": "ops"}}
	return Fleet{Apps: []string{"a", "b", "c"}, Locations: []string{"L1", "L2"}, Services: []string{"S"},
		AppLocation: []int{0, 0, 1},
		Match: func(sel map[string]string) []int {
			var out []int
			for i, l := range labels {
				ok := true
				for k, v := range sel {
					ok = ok && l[k] == v
				}
				if ok {
					out = append(out, i)
				}
			}
			return out
		}}
}

func def(t testing.TB, name, window string, sub objective.Subject, labels map[string]string) objective.Objective {
	t.Helper()
	w, err := objective.ParseWindow(window)
	if err != nil {
		t.Fatal(err)
	}
	return objective.Objective{Name: name, Target: 0.99, Window: w, Subject: sub, Labels: labels}
}

func latencyDef(t testing.TB, name string, th time.Duration, sub objective.Subject) objective.Objective {
	d := def(t, name, "30d", sub, nil)
	d.Kind, d.Threshold = objective.Latency, th
	return d
}

// names are the names of s's entries, in order.
func names(s *Set) []string {
	var out []string
	for _, e := range s.entries {
		out = append(out, e.name)
	}
	return out
}

func TestCompile(t *testing.T) {
	app := func(n string) objective.Subject { return objective.Subject{App: n} }
	shop := map[string]string{"team": "shop"}
	tests := []struct {
		name      string
		defs      []objective.Objective
		discovery bool
		want      []string // entries
		errs      []string // substrings, one per error, in order
		unmatched []string
	}{
		{name: "one of each subject", defs: []objective.Objective{
			def(t, "a", "30d", app("a"), nil), def(t, "l", "30d", objective.Subject{Location: "L1"}, nil),
			def(t, "s", "30d", objective.Subject{Service: "S"}, nil), def(t, "sel", "30d", objective.Subject{Selector: shop}, nil)},
			want: []string{"a", "l", "s", "sel"}},
		{name: "per_app: one entry per matching app", defs: []objective.Objective{
			def(t, "shop", "30d", objective.Subject{Selector: shop, PerApp: true}, nil)},
			want: []string{"shop:a", "shop:b"}},
		{name: "a selector that matches nothing yet", defs: []objective.Objective{
			def(t, "x", "30d", objective.Subject{Selector: map[string]string{"team": "none"}}, nil),
			def(t, "y", "30d", objective.Subject{Selector: map[string]string{"team": "none"}, PerApp: true}, nil)},
			want: []string{"x"}, unmatched: []string{"x", "y"}},
		{name: "errors are all reported, the rest compiled", defs: []objective.Objective{
			def(t, "a", "30d", app("a"), nil), def(t, "a", "30d", app("b"), nil),
			def(t, "ghost", "30d", app("z"), nil), def(t, "mars", "30d", objective.Subject{Location: "Mars"}, nil),
			def(t, "svc", "30d", objective.Subject{Service: "T"}, nil), def(t, "none", "30d", objective.Subject{}, nil),
			{Name: "bad", Target: 2, Window: def(t, "x", "30d", app("a"), nil).Window, Subject: app("a")}},
			want: []string{"a"},
			errs: []string{`objectives[1]: objective "a": the name is taken`, `objectives[2]: objective "ghost": no app is named "z"`,
				`objectives[3]: objective "mars": no location is named "Mars"`, `objectives[4]: objective "svc": no service is named "T"`,
				`objectives[5]: objective "none": no subject`, `objectives[6]: target`}},
		{name: "with discovery an app may come later", defs: []objective.Objective{def(t, "later", "30d", app("z"), nil)},
			discovery: true, want: []string{"later"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := fleet()
			f.Discovery = tt.discovery
			s, errs := Compile(tt.defs, time.UTC, f)
			if d := cmp.Diff(tt.want, names(s)); d != "" {
				t.Errorf("entries (-want +got):\n%s", d)
			}
			if len(errs) != len(tt.errs) {
				t.Fatalf("errors %v, want %d", errs, len(tt.errs))
			}
			for i, e := range errs {
				if !strings.Contains(e.Error(), tt.errs[i]) {
					t.Errorf("error %d = %q, want it to contain %q", i, e, tt.errs[i])
				}
			}
			if d := cmp.Diff(tt.unmatched, s.Unmatched()); d != "" {
				t.Errorf("Unmatched (-want +got):\n%s", d)
			}
		})
	}
}

// A selection's entry holds its apps; the labels of every objective make
// the series' label names, each entry's values aligned with them; the zone
// given is the one of calendar windows that set none.
func TestCompileResolves(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip(err)
	}
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Skip(err)
	}
	own := def(t, "own", "month", objective.Subject{App: "c"}, map[string]string{"tier": "1"})
	own.Window.Location = tokyo
	s, errs := Compile([]objective.Objective{
		def(t, "sel", "month", objective.Subject{Selector: map[string]string{"team": "shop"}}, map[string]string{"team": "shop"}),
		own,
	}, berlin, fleet())
	if errs != nil {
		t.Fatal(errs)
	}
	if d := cmp.Diff([]int{0, 1}, s.entries[0].apps); d != "" {
		t.Errorf("the selection's apps (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"team", "tier"}, s.LabelNames()); d != "" {
		t.Errorf("LabelNames (-want +got):\n%s", d)
	}
	if d := cmp.Diff([][]string{{"shop", ""}, {"", "1"}}, [][]string{s.entries[0].labels, s.entries[1].labels}); d != "" {
		t.Errorf("label values (-want +got):\n%s", d)
	}
	if s.entries[0].def.Window.Location != berlin || s.entries[1].def.Window.Location != tokyo {
		t.Errorf("zones %v, %v; want Europe/Berlin (the default) and Asia/Tokyo (its own)",
			s.entries[0].def.Window.Location, s.entries[1].def.Window.Location)
	}
	if s.entries[1].kind != "app" || s.entries[1].subject != "c" || s.entries[0].kind != "selector" || s.entries[0].subject != `{team="shop"}` {
		t.Errorf("subjects %s %s, %s %s", s.entries[0].kind, s.entries[0].subject, s.entries[1].kind, s.entries[1].subject)
	}
}

// Latency objectives count tracks, one per app and threshold: two
// objectives with the same threshold on an app share one; a location's
// and a selection's are their apps'.
func TestCompileLatencyTracks(t *testing.T) {
	s, errs := Compile([]objective.Objective{
		latencyDef(t, "a300", 300*time.Millisecond, objective.Subject{App: "a"}),
		latencyDef(t, "l300", 300*time.Millisecond, objective.Subject{Location: "L1"}),
		latencyDef(t, "c1s", time.Second, objective.Subject{Selector: map[string]string{"team": "ops"}, PerApp: true}),
		def(t, "avail", "30d", objective.Subject{App: "c"}, nil),
	}, time.UTC, fleet())
	if errs != nil {
		t.Fatal(errs)
	}
	keys := make([]trackKey, len(s.tracks))
	for i, sp := range s.tracks {
		keys[i] = sp.key
	}
	want := []trackKey{{"a", 300 * time.Millisecond}, {"b", 300 * time.Millisecond}, {"c", time.Second}}
	if d := cmp.Diff(want, keys, cmp.AllowUnexported(trackKey{})); d != "" {
		t.Errorf("tracks (-want +got):\n%s", d)
	}
	got := [][]int{s.entries[0].tracks, s.entries[1].tracks, s.entries[2].tracks, s.entries[3].tracks}
	if d := cmp.Diff([][]int{{0}, {0, 1}, {2}, nil}, got); d != "" {
		t.Errorf("entries' tracks (-want +got):\n%s", d)
	}
	for app, want := range []bool{true, true, true} {
		if s.Latency(app) != want {
			t.Errorf("Latency(%d) = %v", app, !want)
		}
	}
	if !slices.Equal(s.latency[0], []int{0}) {
		t.Errorf("app a's tracks %v, want [0]", s.latency[0])
	}
	if k := s.tracks[0].keep; k != keepFor(s.entries[0].def.Window) {
		t.Errorf("keep %d", k)
	}
}
