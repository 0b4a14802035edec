package inputerr

import (
	"errors"
	"strings"
	"testing"
)

func TestRefuse(t *testing.T) {
	errBad := errors.New("bad thing")
	tests := []struct {
		name, text, want string
	}{
		{"short", "2026-13", `period "2026-13": month must be 01-12; allowed: 2026-11`},
		{"long", strings.Repeat("x", 50), `period "` + strings.Repeat("x", 40) + `"...: month must be 01-12; allowed: 2026-11`},
		{"quotes", "a\"b\n", `period "a\"b\n": month must be 01-12; allowed: 2026-11`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Refuse(errBad, "period", tt.text, "month must be 01-12", "allowed: 2026-11")
			if err.Error() != tt.want {
				t.Errorf("Error() = %q, want %q", err.Error(), tt.want)
			}
			if !errors.Is(err, errBad) {
				t.Errorf("errors.Is(%v, sentinel) = false", err)
			}
		})
	}
}
