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
