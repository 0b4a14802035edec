// Package errtext bounds the error texts availmon keeps and logs, for the
// monitor and the sources alike.
package errtext

// Max bounds every error text availmon keeps per app (and logs from a
// backend): a backend's message can be as long as the query it quotes, and
// it is kept in every history entry.
const Max = 512

// Truncate cuts s to at most n bytes on a UTF-8 boundary, marking the cut
// with "…".
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const mark = "…"
	cut := n - len(mark)
	for cut > 0 && !isRuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + mark
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
