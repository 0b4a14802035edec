package config

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/availmon/availmon"
)

// authentication.allow_unauthenticated_writes reaches the Options, and
// availmon.New takes them; it is off by default.
func TestAllowUnauthenticatedWrites(t *testing.T) {
	for _, tc := range []struct {
		extra string
		want  bool
	}{
		{"", false},
		{"authentication:\n  allow_unauthenticated_writes: false\n", false},
		{"authentication:\n  allow_unauthenticated_writes: true\n", true},
	} {
		cfg, err := Parse("t.yaml", []byte(base()+"\n"+tc.extra), env(nil))
		if err != nil {
			t.Fatalf("%q: %v", tc.extra, err)
		}
		opts, err := cfg.Options(nil)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.AllowUnauthenticatedWrites != tc.want || opts.AllowUnauthenticatedWrites != tc.want || opts.Authenticator != nil {
			t.Errorf("%q: config %v, options %v, Authenticator %v; want %v and none", tc.extra,
				cfg.AllowUnauthenticatedWrites, opts.AllowUnauthenticatedWrites, opts.Authenticator, tc.want)
		}
		if _, err := availmon.New(opts); err != nil {
			t.Errorf("%q: availmon.New: %v", tc.extra, err)
		}
	}
}

// ReplayFile, set by the binary, is where the verifier keeps its
// signatures: Options creates it.
func TestReplayFileReachesVerifier(t *testing.T) {
	cfg, err := Parse("t.yaml", []byte(base()+"\nauthentication:\n  hmac:\n    enabled: true\n    secret: "+testSecret+"\n"), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	cfg.ReplayFile = filepath.Join(t.TempDir(), "availmon.replay")
	if _, err := cfg.Options(nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(cfg.ReplayFile); err != nil {
		t.Errorf("the replay file was not created: %v", err)
	}
}
