package errtext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTruncateText(t *testing.T) {
	for _, tt := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"abcdefghijkl", 10, "abcdefg…"},
		// Never cut inside a character: "é" is two bytes.
		{"ééééééé", 10, "ééé…"},
		{"aéééééé", 10, "aééé…"},
	} {
		got := Truncate(tt.in, tt.n)
		if got != tt.want || len(got) > tt.n || !utf8.ValidString(got) {
			t.Errorf("Truncate(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

// Whatever a backend answers, the error text kept per app is at most
// Max bytes, a prefix of the original, and valid UTF-8 when the
// original was.
func FuzzTruncateText(f *testing.F) {
	f.Add("short", 10)
	f.Add(strings.Repeat("é", 600), Max)
	f.Add("abc\xffdef", 4)
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n < len("…") || n > 1<<20 {
			return
		}
		got := Truncate(s, n)
		if len(got) > n {
			t.Fatalf("Truncate(%q, %d) = %q: %d bytes", s, n, got, len(got))
		}
		if got != s {
			body := strings.TrimSuffix(got, "…")
			if !strings.HasPrefix(s, body) || body == got {
				t.Fatalf("Truncate(%q, %d) = %q: not a marked prefix", s, n, got)
			}
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("Truncate(%q, %d) = %q: invalid UTF-8", s, n, got)
		}
	})
}
