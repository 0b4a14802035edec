package main

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParsePlatforms(t *testing.T) {
	tests := []struct {
		in      string
		want    []platform
		wantErr string
	}{
		{"linux/amd64", []platform{{"linux", "amd64"}}, ""},
		{"linux/amd64, windows/amd64", []platform{{"linux", "amd64"}, {"windows", "amd64"}}, ""},
		{"", nil, "is not GOOS/GOARCH"},
		{"linux", nil, "is not GOOS/GOARCH"},
		{"linux/", nil, "is not GOOS/GOARCH"},
		{"/amd64", nil, "is not GOOS/GOARCH"},
		{"linux/amd64/v3", nil, "is not GOOS/GOARCH"},
		{"linux/amd64,", nil, "is not GOOS/GOARCH"},
		{"linux/amd64,linux/amd64", nil, "listed twice"},
	}
	for _, tt := range tests {
		got, err := parsePlatforms(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("parsePlatforms(%q): error %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("parsePlatforms(%q): %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(platform{})); diff != "" {
			t.Errorf("parsePlatforms(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

// Whatever it is given, parsePlatforms returns an error or platforms that
// print back as GOOS/GOARCH and name paths without separators.
func FuzzParsePlatforms(f *testing.F) {
	for _, s := range []string{defaultPlatforms, "linux/amd64", "a/b,a/b", "/", ",", " linux / arm64 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ps, err := parsePlatforms(s)
		if err != nil {
			return
		}
		for _, p := range ps {
			if p.os == "" || p.arch == "" || strings.Contains(p.dir(), "/") || p.String() != p.os+"/"+p.arch {
				t.Errorf("parsePlatforms(%q) gave %#v", s, p)
			}
		}
	})
}

func TestSourceDate(t *testing.T) {
	env := func(v string) func(string) (string, bool) {
		return func(k string) (string, bool) { return v, k == "SOURCE_DATE_EPOCH" }
	}
	got, err := sourceDate(env("1700000000"))
	if want := time.Unix(1700000000, 0).UTC(); err != nil || !got.Equal(want) {
		t.Errorf("SOURCE_DATE_EPOCH=1700000000: %v, %v; want %v", got, err, want)
	}
	for _, bad := range []string{"yesterday", "-1", "1.5"} {
		if _, err := sourceDate(env(bad)); err == nil {
			t.Errorf("SOURCE_DATE_EPOCH=%q: no error", bad)
		}
	}
}

func TestModFileDeclares(t *testing.T) {
	tests := []struct {
		gomod string
		want  bool
	}{
		{"module github.com/availmon/availmon\n\ngo 1.26.0\n", true},
		{"module \"github.com/availmon/availmon\"\n", true},
		{"module github.com/availmon/availmon/deploy\n", false},
		{"// module github.com/availmon/availmon\nmodule x\n", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := modFileDeclares([]byte(tt.gomod), modulePath); got != tt.want {
			t.Errorf("modFileDeclares(%q) = %v, want %v", tt.gomod, got, tt.want)
		}
	}
}
