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

// minShardSeries is the least shard_series but 0: a group is asked wide
// only when its regular expression would be longer than max_query_length,
// thousands of values, and shards of fewer would cost the server more
// lookups of the label's values than they save.
const minShardSeries = 1000

// shardSeries checks the backend's shard_series: absent is the default
// (0), 0 never cuts (-1).
func (p *parser) shardSeries(path string, b fileBackend) int {
	switch {
	case b.ShardSeries == nil:
		return 0
	case *b.ShardSeries == 0:
		return -1
	case *b.ShardSeries < minShardSeries:
		p.badAt(path+".shard_series", "prometheus backend %q: shard_series must be 0 (never) or at least %d series, not %d", b.Name, minShardSeries, *b.ShardSeries)
		return 0
	}
	return *b.ShardSeries
}
