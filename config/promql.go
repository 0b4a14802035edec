package config

import (
	"strings"

	"github.com/availmon/availmon/internal/promql"
)

// checkExpr parses the PromQL at path (an app's metric or
// response_time_metric) as the server would, so that a typo is reported
// with the other problems of the file rather than found by the first
// query. The parser's line:column is within the expression.
func (p *parser) checkExpr(path, app, expr string) {
	if _, err := promql.Parse(expr); err != nil {
		key := path[strings.LastIndexByte(path, '.')+1:]
		p.badAt(path, "app %q: %s: %v", app, key, err)
	}
}

// minQueryLength is the least max_query_length: below it, even one
// ordinary expression would not fit.
const minQueryLength = 1024

// maxQueryLength checks the backend's max_query_length.
func (p *parser) maxQueryLength(path string, b fileBackend) int {
	if b.MaxQueryLength == nil {
		return 0
	}
	if n := *b.MaxQueryLength; n < minQueryLength {
		p.badAt(path+".max_query_length", "prometheus backend %q: max_query_length must be at least %d bytes, not %d", b.Name, minQueryLength, n)
		return 0
	}
	return *b.MaxQueryLength
}
