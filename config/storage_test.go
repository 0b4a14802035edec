package config

import (
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
		{name: "default", yaml: "", want: Storage{Path: "data", SaveInterval: time.Minute, Backfill: true}},
		{name: "set", yaml: "storage:\n  path: /var/lib/availmon\n  save_interval: 15s\n  backfill: false\n",
			want: Storage{Path: "/var/lib/availmon", SaveInterval: 15 * time.Second}},
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
