// Package promql reads the apps' PromQL with Prometheus's own parser and
// plans the queries that ask a backend for many apps at once.
//
// Parse checks one expression as the server would, before any query is sent:
//
//	e, err := promql.Parse(`sum by (app) (rate(http_requests_total{app="checkout"}[5m]))`)
//
// A Planner turns the expressions of many apps into few queries, built as
// syntax trees and printed, never by pasting text: expressions that differ
// only in the value of one label matcher are fused into one selector with a
// regular expression of the values, where the syntax tree proves that the
// answer for each value is the answer the app would get alone; the others are
// combined with "or", each tagged by label_replace so the answers can be told
// apart.
package promql
