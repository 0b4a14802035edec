package promsource

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/internal/promanswer"
	"github.com/availmon/availmon/internal/promql"
)

// DefaultMaxQueryLength is the longest query a Source sends
// unless Options.MaxQueryLength says otherwise: 32 KiB holds a
// fused selector of about 3,000 app names (a longer group is asked wide:
// promql.PlanWide). Queries are POSTed, so the URL
// limits of servers and proxies do not apply; VictoriaMetrics refuses
// queries over its -search.maxQueryLen (16 KiB by default), so give such a
// backend 16384 or raise its limit.
const DefaultMaxQueryLength = 32 << 10

var (
	_ availmon.AppValidator = (*Source)(nil)
	_ availmon.BatchPlanner = (*Source)(nil)
)

// ValidateApp parses the app's expressions with Prometheus's parser: a
// typo, a range vector or a string is refused at New, with the parser's
// line:column and message.
func (s *Source) ValidateApp(a availmon.App) error {
	if a.Settings != nil {
		return fmt.Errorf("a Prometheus backend's app takes no Settings (%T): give it a backend of the source they are for", a.Settings)
	}
	if _, err := s.expr(a.Metric); err != nil {
		return fmt.Errorf("metric: %w", err)
	}
	if a.ResponseTimeMetric != "" {
		if _, err := s.expr(a.ResponseTimeMetric); err != nil {
			return fmt.Errorf("response time metric: %w", err)
		}
	}
	return nil
}

// PlanBatches gives each planned query's apps their own Check call: the
// apps of a fused selector together, the others by maxTerms; the shards of
// a wide group share one call, which asks them at once.
func (s *Source) PlanBatches(apps []availmon.App, maxTerms int) [][]int {
	items := make([]*promql.Expr, len(apps))
	var bad []int
	for i, a := range apps {
		e, err := s.expr(a.Metric)
		if err != nil {
			bad = append(bad, i)
			continue
		}
		items[i] = e
	}
	var out [][]int
	shards := make(map[int]int) // a wide group's shards: their batch in out
	for _, q := range promql.PlanWide(items, s.maxQueryLen, maxTerms, s.shardValues) {
		g, ok := q.Shard()
		if k, seen := shards[g]; ok && seen {
			out[k] = append(out[k], q.Items()...)
			slices.Sort(out[k])
			continue
		}
		if ok {
			shards[g] = len(out)
		}
		out = append(out, slices.Clone(q.Items()))
	}
	if len(bad) > 0 {
		out = append(out, bad)
	}
	return out
}

// expr returns text parsed: from the cache, else from a kept plan, else
// parsed anew. It is for validation, which asks for every app's
// expressions, those the plans hold included.
func (s *Source) expr(text string) (*promql.Expr, error) { return s.exprs.get(text, &s.plans) }

// cycleExpr returns text parsed, from the cache or parsed anew, for a
// cycle planning a batch whose plan is not kept. It takes nothing back
// from the kept plans: those hold other batches' expressions (a batch's
// own plan is the one not kept), which the cache would then keep beside
// them, and a cycle planning several batches anew (more than the plan
// cache keeps) would walk every kept plan once a batch.
func (s *Source) cycleExpr(text string) (*promql.Expr, error) { return s.exprs.get(text, nil) }

// exprCache keeps the parsed form of the expressions in use, so that a
// cycle plans from syntax trees without parsing again. An expression not
// asked for during a whole cacheAge is dropped: discovery makes and
// drops apps, and each expression ever seen, kept for good, would grow the
// heap for as long as the process runs. Dropping one costs a parse, and a
// plan, if it is ever asked for again. Refused expressions are kept apart:
// they are rare, and the common entry is then only a pointer and its age.
//
// An expression a kept plan holds is dropped at once (forget): the plan
// keeps it anyway, and the map's entry is 30 to 50 bytes an app for as
// long as the cache keeps it, with nothing asking for it while cycles find
// their plan. A later miss of validation (a reconfiguration validating every app)
// takes the plans' expressions back in (refill) rather than parse them again.
type exprCache struct {
	mu       sync.Mutex
	m        map[string]cachedExpr
	bad      map[string]cachedErr
	shared   map[string]string // the expressions' fusion keys, one copy each
	age      ages
	refilled bool // the kept plans' expressions are in m, since the last forget
}

type cachedExpr struct {
	e   *promql.Expr
	gen uint32
}

type cachedErr struct {
	err error
	gen uint32
}

// cacheAge is how often the caches of a source drop what was not asked for
// since the last time: an entry survives at least one age unasked, and at
// most two. Cycles come far more often, and every cycle asks for every
// app's expressions and its batches' plans.
const cacheAge = 10 * time.Minute

// ages numbers the cacheAge periods of a cache, whose entries are stamped
// with the age they were last asked for in.
type ages struct {
	gen   uint32
	start time.Time
	now   func() time.Time // time.Now, but for tests
}

// next reports whether a new age began, ending the one before it. The
// first call begins the first age.
func (a *ages) next() bool {
	if a.now == nil {
		a.now = time.Now
	}
	now := a.now()
	if !a.start.IsZero() && now.Sub(a.start) < cacheAge && !now.Before(a.start) {
		return false
	}
	a.start = now
	a.gen++
	return true
}

// stale reports whether an entry last asked for in age gen was not asked
// for during the whole of the age before the current one.
func (a *ages) stale(gen uint32) bool { return a.gen-gen > 1 }

// get returns text parsed; on a miss, it looks in plans (when not nil)
// before it parses.
func (c *exprCache) get(text string, plans *planCache) (*promql.Expr, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.init()
	gen := c.age.gen
	// Refused expressions first: a cycle asks for those of its apps
	// again, and no plan holds one, so they are no miss to refill on.
	if ce, ok := c.bad[text]; ok {
		if ce.gen != gen {
			c.bad[text] = cachedErr{ce.err, gen}
		}
		return nil, ce.err
	}
	ce, ok := c.m[text]
	if !ok && plans != nil && !c.refilled {
		c.refill(plans)
		ce, ok = c.m[text]
	}
	if ok {
		if ce.gen != gen {
			c.m[text] = cachedExpr{ce.e, gen}
		}
		return ce.e, nil
	}
	e, err := promql.Parse(text)
	if err != nil {
		c.bad[text] = cachedErr{err, gen}
		return nil, err
	}
	e.Share(c.shared)
	c.m[text] = cachedExpr{e, gen}
	return e, nil
}

// refused reports whether text is an expression the parser refuses.
func (c *exprCache) refused(text string) bool {
	_, err := c.get(text, nil)
	return err != nil
}

// refill takes in the expressions of the kept plans: one pass over them,
// not one a miss, and at most once until a plan is made again. Lock
// order: c.mu, then plans.mu.
func (c *exprCache) refill(plans *planCache) {
	c.refilled = true
	plans.each(func(e *promql.Expr) {
		if _, ok := c.m[e.String()]; !ok {
			c.m[e.String()] = cachedExpr{e, c.age.gen}
		}
	})
}

// forget drops the entries of items, which a kept plan now holds.
func (c *exprCache) forget(items []*promql.Expr) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.init()
	n := len(c.m)
	for _, e := range items {
		if e != nil {
			if ce, ok := c.m[e.String()]; ok && ce.e == e {
				delete(c.m, e.String())
			}
		}
	}
	c.m = compacted(c.m, n)
	c.refilled = false
}

// lookup returns text parsed without keeping it: from the cache or the
// kept plans (held, their expressions by text) when either has it, else
// parsed anew.
func (c *exprCache) lookup(text string, held map[string]*promql.Expr) (*promql.Expr, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.init()
	if ce, ok := c.m[text]; ok {
		return ce.e, nil
	}
	if e, ok := held[text]; ok {
		return e, nil
	}
	if ce, ok := c.bad[text]; ok {
		return nil, ce.err
	}
	e, err := promql.Parse(text)
	if err != nil {
		return nil, err
	}
	e.Share(c.shared)
	return e, nil
}

func (c *exprCache) init() {
	if c.m == nil {
		c.m = make(map[string]cachedExpr)
		c.bad = make(map[string]cachedErr)
		c.shared = make(map[string]string)
	}
}

// sweep drops, when a new age begins, the entries not asked for during
// the age before. Check calls it once a call, not get once an app.
func (c *exprCache) sweep() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.init()
	if c.age.next() {
		n := len(c.m)
		c.m = sweepMap(c.m, func(ce cachedExpr) bool { return c.age.stale(ce.gen) })
		// What a refill took in may be what went: the next miss takes
		// the plans' again rather than parse a second copy of theirs.
		c.refilled = c.refilled && len(c.m) == n
		c.bad = sweepMap(c.bad, func(ce cachedErr) bool { return c.age.stale(ce.gen) })
	}
}

// sweepMap deletes the entries of m that are stale. When most go, the
// rest move to a new map: a map keeps the room it once grew to, and the
// cache of 100,000 apps' expressions, once their plan is all a cycle asks
// for, would hold 5 MB of empty room.
func sweepMap[V any](m map[string]V, stale func(V) bool) map[string]V {
	n := len(m)
	maps.DeleteFunc(m, func(_ string, v V) bool { return stale(v) })
	return compacted(m, n)
}

// compacted is m, which held n entries, in a map of its size when most
// of them went.
func compacted[V any](m map[string]V, n int) map[string]V {
	if len(m) >= n/2 {
		return m
	}
	out := make(map[string]V, len(m))
	maps.Copy(out, m)
	return out
}

// planCache keeps the plans of the batches in use: the Monitor hands the
// same batches every cycle, and planning 10,000 apps again would cost a
// good part of a cycle's CPU. A plan holds every item's expression and the
// queries' routing, about 150 bytes an app: those of batches a
// reconfiguration left behind are dropped after a cacheAge unasked.
//
// A plan is found by its apps' expression texts, not their parsed forms:
// a cycle that finds its plan asks the exprCache for nothing, so the cache
// lets go of the expressions a kept plan holds anyway, and its map's 50
// bytes an app with them.
type planCache struct {
	mu    sync.Mutex
	seed  maphash.Seed
	plans map[uint64]cachedPlan
	age   ages
}

type cachedPlan struct {
	items   []*promql.Expr
	queries []*promql.Query
	parsed  int // how many items are not nil
	gen     uint32
}

// maxCachedPlans bounds the cache within an age: a monitor has a few
// batches per backend, and a reconfiguration that changes them all starts
// afresh.
const maxCachedPlans = 1024

// key is the key of the plan for the apps at idx of apps: their places and
// their expressions' texts.
func (c *planCache) key(apps []availmon.App, idx []int) uint64 {
	c.mu.Lock()
	c.init()
	seed := c.seed
	c.mu.Unlock()
	var h maphash.Hash
	h.SetSeed(seed)
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(apps)))
	h.Write(n[:])
	for _, i := range idx {
		binary.LittleEndian.PutUint64(n[:], uint64(i))
		h.Write(n[:])
		h.WriteString(apps[i].Metric)
		h.WriteByte(0)
		h.WriteString(apps[i].ResponseTimeMetric)
		h.WriteByte(0)
	}
	return h.Sum64()
}

func (c *planCache) init() {
	if c.plans == nil {
		c.seed = maphash.MakeSeed()
		c.plans = make(map[uint64]cachedPlan)
	}
}

// cached returns the plan kept under key and its items, when it is the
// plan of the apps at idx: the same expressions in the same places. An
// item left out (nil) matches only an expression refused (refused reports
// it), an empty response time metric, or that of an app whose metric was
// refused.
func (c *planCache) cached(key uint64, apps []availmon.App, idx []int, refused func(string) bool) ([]*promql.Expr, []*promql.Query) {
	c.mu.Lock()
	c.init()
	if c.age.next() {
		maps.DeleteFunc(c.plans, func(_ uint64, cp cachedPlan) bool { return c.age.stale(cp.gen) })
	}
	cp, ok := c.plans[key]
	if ok && cp.gen != c.age.gen {
		cp.gen = c.age.gen
		c.plans[key] = cp
	}
	c.mu.Unlock()
	if !ok || !cp.matches(apps, idx, refused) {
		return nil, nil
	}
	return cp.items, cp.queries
}

func (cp *cachedPlan) matches(apps []availmon.App, idx []int, refused func(string) bool) bool {
	if len(cp.items) != 2*len(apps) {
		return false
	}
	parsed := 0
	for _, i := range idx {
		for k, text := range [2]string{apps[i].Metric, apps[i].ResponseTimeMetric} {
			switch e := cp.items[2*i+k]; {
			case e != nil:
				if e.String() != text {
					return false
				}
				parsed++
			case k == 1 && (text == "" || cp.items[2*i] == nil):
			case !refused(text):
				return false
			}
		}
	}
	return parsed == cp.parsed // and none for apps not at idx
}

// plan makes the plan of items and keeps it under key.
func (c *planCache) plan(key uint64, items []*promql.Expr, maxLen, shardValues int) []*promql.Query {
	qs := promql.PlanWide(items, maxLen, BatchSize, shardValues)
	parsed := 0
	for _, e := range items {
		if e != nil {
			parsed++
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.init()
	if len(c.plans) >= maxCachedPlans {
		clear(c.plans)
	}
	c.plans[key] = cachedPlan{items: items, queries: qs, parsed: parsed, gen: c.age.gen}
	return qs
}

// each calls f with every expression of the kept plans.
func (c *planCache) each(f func(*promql.Expr)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, cp := range c.plans {
		for _, e := range cp.items {
			if e != nil {
				f(e)
			}
		}
	}
}

// held is the kept plans' expressions by their text.
func (c *planCache) held() map[string]*promql.Expr {
	out := make(map[string]*promql.Expr)
	c.each(func(e *promql.Expr) { out[e.String()] = e })
	return out
}

// planned asks for the apps at idx with as few queries as the plan allows
// (item 2i is app i's Metric, item 2i+1 its ResponseTimeMetric), and fills
// c.out. It returns the apps one of whose expressions the server refused
// on its own: they are to be asked alone (one), which names the error and
// remembers the verdict. It returns an error when the server, not an
// expression, failed.
func (c *checkRun) planned(ctx context.Context, idx []int) (fallback []int, err error) {
	key := c.s.plans.key(c.apps, idx)
	items, qs := c.s.plans.cached(key, c.apps, idx, c.s.exprs.refused)
	if qs == nil {
		items = c.items(idx)
		qs = c.s.plans.plan(key, items, c.s.maxQueryLen, c.s.shardValues)
		c.s.exprs.forget(items)
	}
	for _, i := range idx {
		if items[2*i] == nil {
			_, err := c.s.cycleExpr(c.apps[i].Metric)
			c.out[i] = availmon.Result{Status: availmon.StatusUnavailable, Err: fmt.Errorf("metric: %w", err)}
		}
	}
	sc := c.s.takeScratch(len(idx), len(items))
	r := &plannedRun{c: c, sums: sc.sums, rt: sc.rt, refused: sc.refused, buf: sc.series, body: sc.body}
	// The results are ruled from the scratch's summaries: it goes back for
	// another call only once they are.
	defer c.s.putScratch(sc, r)
	var shards []*promql.Query
	for _, q := range qs {
		if _, ok := q.Shard(); ok {
			shards = append(shards, q)
			continue
		}
		if err := r.ask(ctx, q); err != nil {
			return nil, err
		}
	}
	if len(shards) > 0 {
		// At once, as a server evaluates and encodes each on a core of
		// its own: that is what they are cut for.
		if err := r.askEach(ctx, shards); err != nil {
			return nil, err
		}
	}
	for _, i := range idx {
		if items[2*i] == nil {
			continue
		}
		if r.refused[2*i] || r.refused[2*i+1] {
			fallback = append(fallback, i)
			continue
		}
		c.out[i] = ruled(&r.sums[2*i], &r.sums[2*i+1], r.rt[2*i])
	}
	return fallback, nil
}

// items are the parsed expressions of the apps at idx, laid out as
// planned asks for them; an expression refused is left out (nil).
func (c *checkRun) items(idx []int) []*promql.Expr {
	items := make([]*promql.Expr, 2*len(c.apps))
	for _, i := range idx {
		a := c.apps[i]
		e, err := c.s.cycleExpr(a.Metric)
		if err != nil {
			continue
		}
		items[2*i] = e
		if a.ResponseTimeMetric != "" {
			if e, err := c.s.cycleExpr(a.ResponseTimeMetric); err == nil {
				items[2*i+1] = e
			}
		}
	}
	return items
}

// scratch is the buffers of a planned call, kept for the next call: the
// answers' bytes and their series, and what the answers said per item.
// Nothing refers to them once the call has its results. The items
// themselves are not kept here: a cached plan holds on to them.
type scratch struct {
	body    []byte
	series  []promanswer.Series
	sums    []promanswer.Summary
	rt      []time.Duration
	refused []bool
}

// takeScratch returns buffers for a call of n apps and their items, the
// per-item ones zeroed: most answers hold about a series per app, so one
// series buffer of n serves every query of the call.
func (s *Source) takeScratch(n, items int) *scratch {
	sc := s.scratch.take()
	if want := int(s.answerSize.Load()) + bytes.MinRead; cap(sc.body) > 2*want {
		sc.body = nil // answers shrank: do makes one of their size
	}
	if cap(sc.series) < n {
		sc.series = make([]promanswer.Series, 0, n)
	}
	sc.sums = resize(sc.sums, items)
	sc.rt = resize(sc.rt, items)
	sc.refused = resize(sc.refused, items)
	return sc
}

// resize returns a zeroed slice of n, in b when it has the room.
func resize[T any](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n)
	}
	b = b[:n]
	clear(b)
	return b
}

// putScratch keeps r's buffers, grown as they may have been, for the next
// call, unless its answers were larger than maxKeptAnswer.
func (s *Source) putScratch(sc *scratch, r *plannedRun) {
	sc.body, sc.series = r.body[:0], r.buf[:0]
	r.body, r.buf = nil, nil
	if cap(sc.body) > maxKeptAnswer {
		return
	}
	s.scratch.put(sc)
}

// maxKeptAnswer bounds the answer buffer a call keeps for the next. Kept,
// a buffer saves the collections its garbage would cost each cycle, which
// matters while the heap is small (a megabyte's answer at 10,000 apps).
// Past a few megabytes the heap is large enough that one allocation of
// the answer a cycle adds few collections, while keeping it (and its
// series and summaries, a wide query's answer is 16 MB of buffers at
// 100,000 apps) adds that much to the resident memory for good.
const maxKeptAnswer = 4 << 20

// scratchList keeps the scratch of a few calls. Not a sync.Pool: a pool
// keeps what is put on a P for the next call on that P, and the calls of
// the next cycle run on new goroutines, as often as not on another P.
type scratchList struct {
	mu   sync.Mutex
	free []*scratch
}

// maxScratch bounds the calls' buffers kept: about the calls one cycle
// runs at once, each the size of a recent answer.
const maxScratch = 8

func (l *scratchList) take() *scratch {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n := len(l.free); n > 0 {
		sc := l.free[n-1]
		l.free = l.free[:n-1]
		return sc
	}
	return &scratch{}
}

func (l *scratchList) put(sc *scratch) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.free) < maxScratch {
		l.free = append(l.free, sc)
	}
}

// plannedRun is what the queries of one planned call found, per item.
type plannedRun struct {
	c       *checkRun
	sums    []promanswer.Summary
	rt      []time.Duration // round trip of the query that answered the item
	refused []bool          // the item's expression was refused on its own
	buf     []promanswer.Series
	body    []byte // the answers' bytes, read one query after another
}

// ask runs q. When the server refuses it (and answers a trivial query, so
// an expression is at fault), the halves are asked in turn, down to the
// expression at fault: one bad expression among n costs about 2·log2(n)
// queries, not n.
func (r *plannedRun) ask(ctx context.Context, q *promql.Query) error {
	c := r.c
	if q.Wide() && q.Narrowed() {
		return r.askEach(ctx, q.Split())
	}
	ans, err := c.s.askRouted(ctx, q, r.buf, r.body)
	r.buf, r.body = ans.series[:0], ans.body[:0]
	if err != nil && q.Wide() && r.narrows(ctx, err) {
		q.Narrow()
		return r.askEach(ctx, q.Split())
	}
	if err == nil && q.Wide() && ans.total > wideWaste*len(ans.series) {
		// Right, but dearer than the parts: the label has many values
		// not asked for.
		q.Narrow()
	}
	if err != nil {
		if classify(err) == classBackend || c.serverAnswers(ctx) != nil {
			return newQueryError(c.s.name, describe(q), q.String(), err)
		}
		parts := q.Split()
		if parts == nil {
			for _, it := range q.Items() {
				r.refused[it] = true
			}
			return nil
		}
		for _, p := range parts {
			if err := r.ask(ctx, p); err != nil {
				return err
			}
		}
		return nil
	}
	c.answered = true
	if err := q.Check(ans.typ); err != nil {
		if q.Split() != nil {
			// label_replace, "or" and a fused selector only ever make an
			// instant vector: the server, or a proxy before it, is at
			// fault, not an expression.
			return fmt.Errorf("prometheus %s: %s was answered with a %s, not an instant vector", c.s.name, describe(q), ans.typ)
		}
		for _, it := range q.Items() {
			r.refused[it] = true
		}
		return nil
	}
	for _, s := range ans.series {
		for _, it := range q.Routed(s.Route) {
			r.sums[it].Add(s.Value)
		}
	}
	for _, it := range q.Items() {
		r.rt[it] = ans.rt
	}
	return nil
}

// narrows reports whether a wide query that failed with err is to be
// asked by its parts from now on: its answer was too large, or the server
// failed or refused it (a timeout, VictoriaMetrics's
// -search.maxUniqueTimeseries, a duplicate match group among series no app
// asks for) while it answers other queries. The wide query reads every
// series of the label, the values no app asks for included, so it may be
// what is too much for the server where its parts are not; asked again it
// would fail every cycle. A server that answers nothing keeps the wide
// form, as its parts would fail too, and so does a cycle out of time.
func (r *plannedRun) narrows(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	return errors.Is(err, ErrResponseTooLarge) || r.c.serverAnswers(ctx) == nil
}

// wideWaste is how many series a wide query's answer may hold per series
// asked for before its parts are asked instead: Prometheus spends about
// half the CPU on the wide query of a group that its parts cost, when the
// label has no other values.
const wideWaste = 2

// partsParallel is how many parts of a narrowed wide query are asked at
// once: the monitor planned the group as one batch, and its parts asked
// one after another would take far longer than the batches of a plan
// without wide queries, which the monitor runs in parallel.
const partsParallel = 4

// askEach asks the parts of a narrowed wide query, or the shards of a
// wide group, a few at once. Each asks with buffers of its own; the
// queries' items are distinct, so the per-item results are written by one
// of them each.
func (r *plannedRun) askEach(ctx context.Context, qs []*promql.Query) error {
	n := min(partsParallel, len(qs))
	runs := make([]plannedRun, n)
	checks := make([]checkRun, n) // each its own answered
	errs := make([]error, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for k := range runs {
		checks[k] = *r.c
		runs[k] = plannedRun{c: &checks[k], sums: r.sums, rt: r.rt, refused: r.refused}
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(qs); i = int(next.Add(1) - 1) {
				if errs[k] = runs[k].ask(ctx, qs[i]); errs[k] != nil {
					return
				}
			}
		})
	}
	wg.Wait()
	for k := range checks {
		r.c.answered = r.c.answered || checks[k].answered
	}
	for _, err := range errs {
		if err != nil {
			return err // as asked one after another: the first error ends the call
		}
	}
	return nil
}

// describe names q in errors without its text: an app's error never holds
// a combined query or other apps' expressions.
func describe(q *promql.Query) string {
	if n := len(q.Items()); n > 1 {
		return fmt.Sprintf("a combined query of %d expressions", n)
	}
	return "a query"
}
