package availmon

import (
	"strings"
	"testing"
	"unicode/utf8"
	"unsafe"
)

// Whatever a backend answers, the error text kept per app is at most
// maxErrorText bytes, a prefix of the original, and valid UTF-8 when the
// original was.
func FuzzTruncateText(f *testing.F) {
	f.Add("short", 10)
	f.Add(strings.Repeat("é", 600), maxErrorText)
	f.Add("abc\xffdef", 4)
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n < len("…") || n > 1<<20 {
			return
		}
		got := truncateText(s, n)
		if len(got) > n {
			t.Fatalf("truncateText(%q, %d) = %q: %d bytes", s, n, got, len(got))
		}
		if got != s {
			body := strings.TrimSuffix(got, "…")
			if !strings.HasPrefix(s, body) || body == got {
				t.Fatalf("truncateText(%q, %d) = %q: not a marked prefix", s, n, got)
			}
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("truncateText(%q, %d) = %q: invalid UTF-8", s, n, got)
		}
	})
}

// A server's message is logged without the query it quotes, and bounded.
func FuzzRedactQuery(f *testing.F) {
	q := `label_replace((up{job="a"}` + "\n" + `), "availmon_app", "0", "", "")`
	f.Add("error when executing query="+strings.ReplaceAll(q, `"`, `\"`)+": bad", q)
	f.Add("plain message", "")
	f.Fuzz(func(t *testing.T, msg, query string) {
		got := redactQuery(msg, query)
		if len(got) > maxErrorText {
			t.Fatalf("redactQuery kept %d bytes", len(got))
		}
		if len(query) > len("<query>") && !strings.Contains(query, "<query>") && strings.Contains(got, query) {
			t.Fatalf("redactQuery(%q, %q) = %q still holds the query", msg, query, got)
		}
	})
}

// TestTextInterner: equal texts of a cycle share one copy, and an app's
// unchanged text stays the one it had.
func TestTextInterner(t *testing.T) {
	var texts textInterner
	prev := strings.Clone("backend down")
	if got := texts.intern(strings.Clone("backend down"), prev); unsafe.StringData(got) != unsafe.StringData(prev) {
		t.Errorf("an unchanged text was not kept as it was")
	}
	first := texts.intern(strings.Clone("timeout"), "")
	second := texts.intern(strings.Clone("timeout"), "other")
	if first != "timeout" || unsafe.StringData(first) != unsafe.StringData(second) {
		t.Errorf("two equal texts of a cycle are two copies")
	}
	if got := texts.intern("", "x"); got != "" {
		t.Errorf("intern of the empty text = %q", got)
	}
}
