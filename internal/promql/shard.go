package promql

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/prometheus/prometheus/model/labels"
)

// ShardValues is how many of a wide group's values one query asks for at
// most, as a rule: a larger group is asked in shards, queries the server
// evaluates and encodes side by side rather than one after the other on
// one core. At 100,000 series two shards answer about a tenth sooner than
// one query on two cores, for more CPU; four answer later than one, each
// shard's expression tested against every value of the label
// (docs/decisions.md, PromQL).
const ShardValues = 50_000

// shards cuts the term in shards of about shardValues values, when it
// has more and shardValues is more than 0.
func (t *term) shards(shardValues int) []*term {
	if shardValues <= 0 {
		return []*term{t}
	}
	return t.cut((len(t.values) + shardValues - 1) / shardValues)
}

// cut cuts the term into at most n shards of about as many values each.
// A shard selects the values that begin with one of a few prefixes and
// then a character of a range, label=~"P[a-b].*|Q[c-d].*" (app names
// mostly share a prefix: "app-00001", so the ranges are cut after it);
// the last one also the values that are a prefix the values were cut
// after, each as it is. The shards select each value once, and the
// label's other values only within their ranges: a value no app asks for
// costs as it did in the wide query, in one shard. A term that cannot be
// cut (values that are not all UTF-8, hold a newline, which "." matches
// in Prometheus 3 but not 2, do not branch, or need expressions too long
// for a query) is returned whole.
func (t *term) cut(n int) []*term {
	if n < 2 {
		return []*term{t}
	}
	for _, v := range t.values {
		if !utf8.ValidString(v) || strings.Contains(v, "\n") {
			return []*term{t}
		}
	}
	sorted := slices.Sorted(slices.Values(t.values))
	groups := shardGroups(spans(sorted, max(1, len(sorted)/n), nil), len(sorted), n)
	if len(groups) < 2 {
		return []*term{t}
	}
	in := make(map[string]int, len(t.values)) // a value's shard, +1
	for k, g := range groups {
		for _, s := range g {
			for _, v := range s.values {
				in[v] = k + 1
			}
		}
	}
	out := make([]*term, len(groups))
	first := t.first() // a walk of the group's values: once, not a shard
	for k := range groups {
		out[k] = &term{expr: t.expr, label: t.label, f: t.f, src: t.src, wide: true, maxLen: t.maxLen, group: first}
	}
	// Each shard's values in the group's order, that of their first items
	// (chunks cuts a shard's parts in that order).
	last := out[len(out)-1]
	var exact []string // the values in no span: prefixes cut after
	for _, v := range t.values {
		k := in[v]
		if k == 0 {
			exact = append(exact, v)
			k = len(out)
		}
		out[k-1].values = append(out[k-1].values, v)
	}
	for k, s := range out {
		re := groups[k].regex()
		if s == last && len(exact) > 0 {
			re += "|" + regex(exact)
		}
		s.shard = &labels.Matcher{Type: labels.MatchRegexp, Name: t.label, Value: re}
		if len(s.widened().String()) > t.maxLen {
			return []*term{t}
		}
		s.byValue = t.byValue.subset(s.values)
	}
	return out
}

// span is the values, a run of the sorted values, that begin with prefix
// and then a character from lo to hi.
type span struct {
	prefix string
	lo, hi rune
	values []string
}

// spans appends the spans of sorted, distinct values, each of at most
// target values where the values allow: after the prefix the values
// share, a character that begins more values than target is cut further.
// A value that is the prefix of a cut is in no span.
func spans(sorted []string, target int, out []span) []span {
	skip := len(commonPrefix(sorted[0], sorted[len(sorted)-1]))
	prefix := sorted[0][:skip]
	i := 0
	for i < len(sorted) && len(sorted[i]) == skip {
		i++
	}
	for i < len(sorted) {
		r, size := utf8.DecodeRuneInString(sorted[i][skip:])
		next := sorted[i][:skip+size]
		j := i + 1
		for j < len(sorted) && strings.HasPrefix(sorted[j], next) {
			j++
		}
		if j-i > target {
			out = spans(sorted[i:j], target, out)
		} else {
			out = append(out, span{prefix: prefix, lo: r, hi: r, values: sorted[i:j]})
		}
		i = j
	}
	return out
}

// commonPrefix is the longest prefix of a and b that ends on a
// character's boundary; of sorted values, the first's and the last's is
// every value's.
func commonPrefix(a, b string) string {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	for n > 0 && n < len(a) && !utf8.RuneStart(a[n]) {
		n--
	}
	return a[:n]
}

// shardGroup is the spans of one shard.
type shardGroup []span

// shardGroups deals the spans, in order, to at most n groups of about
// total/n values each.
func shardGroups(spans []span, total, n int) []shardGroup {
	var out []shardGroup
	var cur shardGroup
	sum := 0
	for i, s := range spans {
		cur = append(cur, s)
		sum += len(s.values)
		if len(out) < n-1 && sum*n >= total*(len(out)+1) && len(spans)-i-1 > 0 {
			out = append(out, cur)
			cur = nil
		}
	}
	if len(cur) > 0 && len(out) > 0 {
		out = append(out, cur)
	}
	return out
}

// regex selects the values of the group's spans and any others of their
// prefixes and ranges. It ends in ".*", which Prometheus and
// VictoriaMetrics match as a prefix, without running the expression; "."
// matches no newline in Prometheus 2, and none of the values has one. Spans of one prefix that follow each other are
// written as one range.
func (g shardGroup) regex() string {
	var b strings.Builder
	for i := 0; i < len(g); i++ {
		s := g[i]
		for i+1 < len(g) && g[i+1].prefix == s.prefix {
			i++
			s.hi = g[i].hi
		}
		if b.Len() > 0 {
			b.WriteByte('|')
		}
		b.WriteString(regexp.QuoteMeta(s.prefix))
		b.WriteByte('[')
		b.WriteString(classRune(s.lo))
		if s.hi != s.lo {
			b.WriteByte('-')
			b.WriteString(classRune(s.hi))
		}
		b.WriteString("].*")
	}
	return b.String()
}

// classRune writes r for a character class: letters and digits as they
// are, anything else by its code point.
func classRune(r rune) string {
	if r < utf8.RuneSelf && (r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
		return string(r)
	}
	return fmt.Sprintf(`\x{%x}`, r)
}
