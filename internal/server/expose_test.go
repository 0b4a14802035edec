package server

import "testing"

func TestPprofRequested(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{nil, false},
		{[]string{"-config", "a.yaml"}, false},
		{[]string{"-config", "a.yaml", "-web.enable-pprof"}, true},
		{[]string{"--web.enable-pprof"}, true},
		{[]string{"-web.enable-pprof=true"}, true},
		{[]string{"-web.enable-pprof=1"}, true},
		{[]string{"-web.enable-pprof=false"}, false},
		{[]string{"-web.enable-pprof", "-web.enable-pprof=false"}, false},
		{[]string{"-web.enable-pprof=false", "-web.enable-pprof"}, true},
		{[]string{"-web.enable-pprof=maybe"}, false}, // run refuses it
		{[]string{"--", "-web.enable-pprof"}, false},
		{[]string{"web.enable-pprof"}, false},
		{[]string{"-web.enable-pprofx"}, false},
	} {
		if got := PprofRequested(tc.args); got != tc.want {
			t.Errorf("PprofRequested(%q) = %v, want %v", tc.args, got, tc.want)
		}
	}
}
