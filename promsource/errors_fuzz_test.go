package promsource

import (
	"strings"
	"testing"

	"github.com/availmon/availmon/internal/errtext"
)

// A server's message is logged without the query it quotes, and bounded.
func FuzzRedactQuery(f *testing.F) {
	q := `label_replace((up{job="a"}` + "\n" + `), "availmon_app", "0", "", "")`
	f.Add("error when executing query="+strings.ReplaceAll(q, `"`, `\"`)+": bad", q)
	f.Add("plain message", "")
	f.Fuzz(func(t *testing.T, msg, query string) {
		got := redactQuery(msg, query)
		if len(got) > errtext.Max {
			t.Fatalf("redactQuery kept %d bytes", len(got))
		}
		if len(query) > len("<query>") && !strings.Contains(query, "<query>") && strings.Contains(got, query) {
			t.Fatalf("redactQuery(%q, %q) = %q still holds the query", msg, query, got)
		}
	})
}
