package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestStorage(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       Storage
		err        string
	}{
		{name: "default", yaml: "", want: Storage{Path: "data", SaveInterval: time.Minute, Backfill: true, Retention: 400 * 24 * time.Hour}},
		{name: "set", yaml: "storage:\n  path: /var/lib/availmon\n  save_interval: 15s\n  backfill: false\n  retention: 90d\n",
			want: Storage{Path: "/var/lib/availmon", SaveInterval: 15 * time.Second, Retention: 90 * 24 * time.Hour}},
		{name: "retention too short", yaml: "storage:\n  retention: 1h\n", err: "t.yaml:2: storage.retention 1h is outside [1d, 3650d]"},
		{name: "retention not a duration", yaml: "storage:\n  retention: forever\n", err: `storage.retention: "forever" is not a duration`},
		{name: "not a duration", yaml: "storage:\n  save_interval: soon\n", err: `t.yaml:2: storage.save_interval: "soon" is not a duration`},
		{name: "too short", yaml: "storage:\n  save_interval: 100ms\n", err: "t.yaml:2: storage.save_interval 100ms is outside [1s, 24h]"},
		{name: "unknown key", yaml: "storage:\n  paht: x\n", err: `t.yaml:2: unknown key "paht"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := Parse("t.yaml", []byte(tc.yaml+base()), env(nil))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Storage != tc.want {
				t.Errorf("Storage = %+v, want %+v", cfg.Storage, tc.want)
			}
		})
	}
}

// OptionsWithStore keeps the state in the store as the storage section
// says, and the verifier's replay file beside it; without a store it is
// Options.
func TestOptionsWithStore(t *testing.T) {
	hmacKeys := "authentication:\n  hmac:\n    enabled: true\n    secret: " + testSecret + "\n"
	cfg, err := Parse("t.yaml", []byte("storage:\n  save_interval: 15s\n  backfill: false\n"+hmacKeys+base()), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Storage.Path = t.TempDir()
	store, err := cfg.Storage.Open(nil)
	if err != nil {
		t.Fatal(err)
	}
	opts, err := cfg.OptionsWithStore(store, nil)
	if err != nil {
		t.Fatal(err)
	}
	if opts.Store != store || opts.SaveInterval != 15*time.Second || opts.Backfill {
		t.Errorf("Store %v, SaveInterval %s, Backfill %v; want the store, 15s, false", opts.Store, opts.SaveInterval, opts.Backfill)
	}
	if want := filepath.Join(filepath.Dir(store.Path()), "availmon.replay"); cfg.ReplayFile != want {
		t.Errorf("ReplayFile %q, want %q", cfg.ReplayFile, want)
	}

	memory, err := Parse("t.yaml", []byte(base()), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if opts, err := memory.OptionsWithStore(nil, nil); err != nil || opts.Store != nil || memory.ReplayFile != "" {
		t.Errorf("without a store: Store %v, ReplayFile %q, %v; want none", opts.Store, memory.ReplayFile, err)
	}
}

// A storage directory that cannot be made is an error of Open.
func TestStorageOpenBadDir(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := (Storage{Path: filepath.Join(file, "data")}).Open(nil); err == nil {
		t.Error("Open under a regular file: no error")
	}
}

func TestReports(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       string
		err        string
	}{
		{name: "default", yaml: ""},
		{name: "set", yaml: "reports:\n  time_zone: Europe/Berlin\n", want: "Europe/Berlin"},
		{name: "unknown zone", yaml: "reports:\n  time_zone: Mars/Olympus\n", err: `t.yaml:2: reports.time_zone: time zone "Mars/Olympus"`},
		{name: "local", yaml: "reports:\n  time_zone: Local\n", err: "reports.time_zone"},
		{name: "unknown key", yaml: "reports:\n  zone: UTC\n", err: `t.yaml:2: unknown key "zone"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := Parse("t.yaml", []byte(tc.yaml+base()), env(nil))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Reports.TimeZone != tc.want {
				t.Errorf("reports.time_zone = %q, want %q", cfg.Reports.TimeZone, tc.want)
			}
			opts, err := cfg.Options(nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := opts.TimeZone; tc.want == "" && got != nil || tc.want != "" && (got == nil || got.String() != tc.want) {
				t.Errorf("Options.TimeZone = %v, want %q", got, tc.want)
			}
			if opts.Retention != 400*24*time.Hour {
				t.Errorf("Options.Retention = %v", opts.Retention)
			}
		})
	}
}
