package availmon

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// validOptions is a small valid configuration for New's table to break.
func validOptions() Options {
	src := SourceFunc(func(context.Context, App) Result { return Result{Status: StatusUp} })
	return Options{
		Locations: []Location{telAviv, frankfurt},
		Apps: []App{
			{Name: "checkout", Location: "Tel Aviv"},
			{Name: "billing", Location: "Frankfurt"},
		},
		Source: src,
	}
}

// New refuses every invalid option with an error that names the problem,
// and reports all problems at once.
func TestNewValidation(t *testing.T) {
	src := SourceFunc(func(context.Context, App) Result { return Result{Status: StatusUp} })
	tests := []struct {
		name   string
		change func(o *Options)
		want   []string // each must appear in the error
	}{
		{"duplicate app", func(o *Options) { o.Apps = append(o.Apps, App{Name: "checkout", Location: "Frankfurt"}) },
			[]string{`app "checkout" is listed twice`}},
		{"duplicate location", func(o *Options) { o.Locations = append(o.Locations, Location{Name: "Tel Aviv"}) },
			[]string{`location "Tel Aviv" is listed twice`}},
		{"app name not UTF-8", func(o *Options) { o.Apps[0].Name = "check\xffout" },
			[]string{`app "check\xffout": the name is not valid UTF-8`}},
		{"location name not UTF-8", func(o *Options) { o.Locations[0].Name = "Tel\xc3"; o.Apps[0].Location = "Tel\xc3" },
			[]string{`location "Tel\xc3": the name is not valid UTF-8`}},
		{"unknown location", func(o *Options) { o.Apps[1].Location = "Atlantis" },
			[]string{`app "billing": unknown location "Atlantis"`}},
		{"empty location of app", func(o *Options) { o.Apps[1].Location = "" },
			[]string{`app "billing": unknown location ""`}},
		{"unknown backend", func(o *Options) { o.Apps[0].Backend = "thanos" },
			[]string{`app "checkout": unknown backend "thanos"`}},
		{"no backend named among several", func(o *Options) {
			o.Source = nil
			o.Backends = []Backend{{Name: "a", Source: src}, {Name: "b", Source: src}}
		}, []string{`app "checkout": no backend named, and there are 2`}},
		{"latitude above 90", func(o *Options) { o.Locations[0].Latitude = 90.5 },
			[]string{`location "Tel Aviv": latitude 90.5 is outside [-90, 90]`}},
		{"latitude below -90", func(o *Options) { o.Locations[0].Latitude = -91 },
			[]string{`latitude -91 is outside [-90, 90]`}},
		{"longitude above 180", func(o *Options) { o.Locations[1].Longitude = 180.01 },
			[]string{`location "Frankfurt": longitude 180.01 is outside [-180, 180]`}},
		{"longitude below -180", func(o *Options) { o.Locations[1].Longitude = -200 },
			[]string{`longitude -200 is outside [-180, 180]`}},
		{"NaN latitude", func(o *Options) { o.Locations[0].Latitude = math.NaN() },
			[]string{`location "Tel Aviv": latitude NaN`}},
		{"NaN longitude", func(o *Options) { o.Locations[0].Longitude = math.NaN() },
			[]string{`location "Tel Aviv": longitude NaN`}},
		{"infinite longitude", func(o *Options) { o.Locations[0].Longitude = math.Inf(1) },
			[]string{`longitude +Inf is outside`}},
		{"interval below 1s", func(o *Options) { o.Interval = 500 * time.Millisecond },
			[]string{"interval: 500ms is outside [1s, 1h]"}},
		{"interval above 1h", func(o *Options) { o.Interval = time.Hour + time.Second },
			[]string{"interval: 1h1s is outside [1s, 1h]"}},
		{"negative interval", func(o *Options) { o.Interval = -time.Second },
			[]string{"interval:", "outside [1s, 1h]"}},
		{"negative timeout", func(o *Options) { o.Timeout = -time.Second },
			[]string{"timeout -1s is negative"}},
		{"negative MaxParallel", func(o *Options) { o.MaxParallel = -1 },
			[]string{"max parallel -1 is negative"}},
		{"negative HistorySize", func(o *Options) { o.HistorySize = -5 },
			[]string{"history size -5 is negative"}},
		{"no source", func(o *Options) { o.Source = nil },
			[]string{"no backend: set Source or Backends"}},
		{"backend without source", func(o *Options) {
			o.Source = nil
			o.Backends = []Backend{{Name: "main"}}
		}, []string{`backend "main" has no source`}},
		{"Source and Backends", func(o *Options) { o.Backends = []Backend{{Name: "b", Source: src}} },
			[]string{"set either Source or Backends, not both"}},
		{"duplicate backend", func(o *Options) {
			o.Source = nil
			o.Backends = []Backend{{Name: "a", Source: src}, {Name: "a", Source: src}}
		}, []string{`backend "a" is listed twice`}},
		{"backend without name", func(o *Options) {
			o.Source = nil
			o.Backends = []Backend{{Source: src}}
		}, []string{"backend 1 has no name"}},
		{"negative batch size", func(o *Options) {
			o.Source = nil
			o.Backends = []Backend{{Name: "a", Source: src, BatchSize: -1}}
		}, []string{`backend "a": batch size -1 is negative`}},
		{"app without name", func(o *Options) { o.Apps[1].Name = " " }, []string{"app 2 has no name"}},
		{"location without name", func(o *Options) { o.Locations[1].Name = "" },
			[]string{"location 2 has no name", `app "billing": unknown location "Frankfurt"`}},
		{"several problems at once", func(o *Options) {
			o.Interval = 2 * time.Hour
			o.HistorySize = -1
			o.Apps[0].Location = "Nowhere"
		}, []string{"interval: 2h is outside", "history size -1 is negative", `unknown location "Nowhere"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := validOptions()
			tt.change(&o)
			m, err := New(o)
			if err == nil {
				t.Fatalf("New accepted the options")
			}
			if m != nil {
				t.Errorf("New returned a Monitor with its error")
			}
			if !strings.HasPrefix(err.Error(), "availmon: invalid options: ") {
				t.Errorf("error %q lacks the package prefix", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

// What New accepts, and the defaults it fills in.
func TestNewDefaults(t *testing.T) {
	tests := []struct {
		name   string
		change func(o *Options)
		want   []any // interval, timeout, max parallel, history size, version
	}{
		{"defaults", func(o *Options) {}, []any{30 * time.Second, 10 * time.Second, 32, 100, "dev"}},
		{"interval 1s", func(o *Options) { o.Interval = time.Second }, []any{time.Second, time.Second, 32, 100, "dev"}},
		{"interval 1h", func(o *Options) { o.Interval = time.Hour }, []any{time.Hour, 10 * time.Second, 32, 100, "dev"}},
		{"explicit", func(o *Options) {
			o.Interval, o.Timeout, o.MaxParallel, o.HistorySize, o.Version = time.Minute, 20*time.Second, 4, 7, "v9"
		}, []any{time.Minute, 20 * time.Second, 4, 7, "v9"}},
		{"edge coordinates", func(o *Options) {
			o.Locations[0].Latitude, o.Locations[0].Longitude = -90, 180
			o.Locations[1].Latitude, o.Locations[1].Longitude = 90, -180
		}, []any{30 * time.Second, 10 * time.Second, 32, 100, "dev"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := validOptions()
			tt.change(&o)
			m, err := New(o)
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			got := []any{m.Interval(), m.cycleTimeout(m.Interval()), m.cfg.maxParallel, m.cfg.historySize, m.cfg.version}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("interval, timeout, max parallel, history size, version (-want +got):\n%s", diff)
			}
		})
	}
	// The zero Options are valid: a monitor of nothing.
	if _, err := New(Options{}); err != nil {
		t.Errorf("New(Options{}): %v", err)
	}
	// New copies its slices: changing the caller's afterwards changes nothing.
	o := validOptions()
	m, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	o.Apps[0].Name, o.Locations[0].Name = "changed", "changed"
	if p := m.snap.Load().p; p.apps[0].Name != "checkout" || p.locations[0].Name != "Tel Aviv" {
		t.Errorf("the monitor shares the caller's slices")
	}
}

// SetInterval accepts [1s, 1h], refuses the rest and leaves the interval
// as it was; each accepted change is an event.
func TestSetInterval(t *testing.T) {
	tm := newTestMonitor(t)
	tests := []struct {
		d       time.Duration
		wantErr bool
	}{
		{time.Second, false}, {time.Hour, false}, {90 * time.Second, false},
		{999 * time.Millisecond, true}, {time.Hour + time.Nanosecond, true}, {0, true}, {-time.Minute, true},
	}
	want := 30 * time.Second
	for _, tt := range tests {
		err := tm.SetInterval(tt.d)
		if (err != nil) != tt.wantErr {
			t.Errorf("SetInterval(%s) error %v, wantErr %v", tt.d, err, tt.wantErr)
		}
		if !tt.wantErr {
			want = tt.d
		}
		if got := tm.Interval(); got != want {
			t.Errorf("after SetInterval(%s) Interval() = %s, want %s", tt.d, got, want)
		}
	}
	evs, _, _, _ := tm.events.read(0, nil)
	var got []string
	for _, e := range evs {
		got = append(got, e.PreviousInterval+"->"+e.Interval)
	}
	if diff := cmp.Diff([]string{"30s->1s", "1s->1h", "1h->1m30s"}, got); diff != "" {
		t.Errorf("config_update events (-want +got):\n%s", diff)
	}
}

// Scrape on a cancelled context does nothing and says so.
func TestScrapeCancelled(t *testing.T) {
	tm := newTestMonitor(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := tm.Scrape(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Scrape on a cancelled context: %v, want context.Canceled", err)
	}
	if tm.src.Calls() != 0 || tm.snap.Load().seq != 0 {
		t.Errorf("a cancelled Scrape called the source %d times and published seq %d", tm.src.Calls(), tm.snap.Load().seq)
	}
}

// Two monitors in one process keep apart: nothing is shared between them.
func TestTwoMonitorsIndependent(t *testing.T) {
	a, b := newTestMonitor(t), newTestMonitor(t)
	a.src.Set("checkout", StatusUp, time.Millisecond)
	b.src.Set("checkout", StatusDown, time.Millisecond)
	a.scrape(t)
	if err := b.SetInterval(time.Minute); err != nil {
		t.Fatal(err)
	}
	_, sa := get(t, a.h, "/api/apps/checkout")
	_, sb := get(t, b.h, "/api/apps/checkout")
	if sa["data"].(obj)["status"] != "up" || sb["data"].(obj)["status"] != "unavailable" {
		t.Errorf("statuses %v and %v, want up and unavailable (b never scraped)", sa["data"].(obj)["status"], sb["data"].(obj)["status"])
	}
	if a.Interval() != 30*time.Second {
		t.Errorf("a's interval changed with b's: %s", a.Interval())
	}
}
