package period_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/availmon/availmon/period"
)

func TestLoadLocation(t *testing.T) {
	for _, name := range []string{"UTC", "Europe/Berlin", "Asia/Kathmandu", "Australia/Lord_Howe", "America/New_York"} {
		loc, err := period.LoadLocation(name)
		if err != nil {
			t.Errorf("LoadLocation(%q): %v", name, err)
		} else if loc.String() != name {
			t.Errorf("LoadLocation(%q) = %v", name, loc)
		}
	}
	const forms = "; use an IANA time zone name such as UTC, Europe/Berlin or America/New_York"
	tests := []struct{ in, want string }{
		{"", `time zone "": empty`},
		{"Local", `time zone "Local": the server's local zone is not accepted`},
		{"Europe/Berln", `time zone "Europe/Berln": unknown`},
		{"europe/berlin", `time zone "europe/berlin": unknown`},
		{" UTC", `time zone " UTC": unknown`},
		{"+01:00", `time zone "+01:00": unknown`},
		{"../../etc/passwd", `time zone "../../etc/passwd": unknown`},
		{"/etc/localtime", `time zone "/etc/localtime": unknown`},
		{"Europe/", `time zone "Europe/": unknown`},
		{strings.Repeat("A", 65), `time zone "` + strings.Repeat("A", 40) + `"...: too long`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			loc, err := period.LoadLocation(tt.in)
			if !errors.Is(err, period.ErrTimeZone) || loc != nil {
				t.Fatalf("LoadLocation(%q) = %v, %v; want ErrTimeZone", tt.in, loc, err)
			}
			if diff := cmp.Diff(tt.want+forms, err.Error()); diff != "" {
				t.Errorf("error text (-want +got):\n%s", diff)
			}
		})
	}
}
