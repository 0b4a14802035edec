package availmon

import (
	"context"
	"errors"
	"time"

	"github.com/prometheus/common/model"

	"github.com/availmon/availmon/hmac"
)

// A Source needs only Check. The interfaces below are what a Source may
// implement besides, each for one capability; the monitor asks for them
// with a type assertion and uses nothing else of a Source, so a source
// written outside this module gets every capability the built-in ones have
// (see the promsource and httpprobe packages).

// AppValidator is a Source that can tell a bad app before any check: New
// and Reconfigure refuse the app with the other problems of the options,
// rather than report it unavailable for ever. It is also given a discovery
// rule's query, as App{Metric: rule.Query}.
type AppValidator interface {
	ValidateApp(app App) error
}

// BatchPlanner is a Source that chooses which of its backend's apps share a
// Check call, such as the apps one query can answer together. Without it
// the apps are cut into batches of Backend.BatchSize in the order listed.
type BatchPlanner interface {
	// PlanBatches partitions apps into batches, as indexes into apps;
	// every index must be in exactly one batch. maxBatch is the backend's
	// BatchSize, which the source may read as it sees fit (a
	// promsource.Source counts the apps of one fused selector as one).
	// It is called by New and Reconfigure, not by the cycles.
	PlanBatches(apps []App, maxBatch int) [][]int
}

// InstantQuerier is a Source that can run one query and return its series,
// which is what a DiscoveryRule needs of its backend: each series' labels
// may make an app, whose state its values tell by the rules of App.Metric.
type InstantQuerier interface {
	// Instant runs query once and returns its samples (a scalar is one
	// sample without labels) and how long the backend took to answer.
	Instant(ctx context.Context, query string) (model.Vector, time.Duration, error)
}

// RequestReporter is a Source that tells the monitor of every request it
// makes to its backend, by calling ReportRequest with the context it was
// given. The scrape metrics (availmon_scrape_duration_seconds and
// availmon_scrape_errors_total, by backend) then count the requests, so
// that a Check that needed three counts three; for other sources they count
// Check calls.
type RequestReporter interface {
	// ReportsRequests reports whether the source calls ReportRequest for
	// each of its requests.
	ReportsRequests() bool
}

// ReportRequest tells the monitor whose Check (or discovery query) ctx
// belongs to of one backend request: how long it took, to the end of its
// answer, and why it failed (nil when it did not). It calls the observer
// WithRequestObserver put in ctx, and does nothing when there is none, so
// a source may call it unconditionally.
func ReportRequest(ctx context.Context, took time.Duration, err error) {
	if obs, ok := ctx.Value(requestObserverKey{}).(func(time.Duration, error)); ok {
		obs(took, err)
	}
}

type requestObserverKey struct{}

// WithRequestObserver returns a copy of ctx whose ReportRequest calls
// observe. The monitor gives a RequestReporter's Check such a context; a
// source's own tests, or a Source that wraps another, may make one too.
func WithRequestObserver(ctx context.Context, observe func(took time.Duration, err error)) context.Context {
	return context.WithValue(ctx, requestObserverKey{}, observe)
}

// DetailedError is an error of Check (or of Instant) whose Detail, such as
// the backend's own message, is logged beside it, while the apps, and so
// the API, see only Error: a backend's message may quote a query that
// combines other apps' expressions.
type DetailedError interface {
	error
	Detail() string
}

// PastSource is a Source that can tell what its apps' states were in the
// past, which Options.Backfill asks of it for the minutes no monitor
// observed. The monitor drives the questions: it asks each planned query
// where its data begins (Probe), the minutes up and down of each app over
// the last day (Hours) and the apps up and down each minute (Counts), one
// question at a time, asking again with backoff while they fail.
type PastSource interface {
	// PlanPast plans the queries that tell the past of apps, the
	// backend's apps at the start of the backfill. PastCount.App is an
	// index into apps.
	PlanPast(apps []App) []PastQuery
}

// PastAdopter is a PastSource that can go on with the queries another
// PastSource planned, when a reconfiguration replaced that one on the same
// backend while the backfill ran. Without it, what was left of them is
// dropped.
type PastAdopter interface {
	// AdoptPast returns q, asked through this source from now on; false
	// when this source cannot ask it.
	AdoptPast(q PastQuery) (PastQuery, bool)
}

// PastQuery is one planned query of a PastSource over the past. Its
// questions are asked one at a time, never at once.
type PastQuery interface {
	// MaxSteps is the most steps one Counts question should span, so
	// that one question is not too much for the backend.
	MaxSteps() int
	// Probe returns the first step of r at which any of the query's apps
	// has data, or found false when none has.
	Probe(ctx context.Context, r PastRange) (first time.Time, found bool, err error)
	// Counts hands add, per step of r, how many of the query's apps were
	// up and how many down at that step (App is -1).
	Counts(ctx context.Context, r PastRange, add func(PastCount)) error
	// Hours hands add, per app of the query and per step of r, how many
	// minutes the app was up and how many down in the r.Window that ends
	// at the step. r's steps are half a minute past a whole minute, so
	// that the window holds whole minutes.
	Hours(ctx context.Context, r PastRange, add func(PastCount)) error
}

// ErrPastRefused marks the error of a past question that the backend
// refuses as bad input (Prometheus's 400 bad_data, a 422 of the query's
// evaluation): asked again, the same question is refused again. The
// backfill gives up on the question's span with a logged error and
// availmon_backfill_questions_refused_total, where it asks again with
// backoff what failed otherwise (a backend down, a timeout). A PastQuery
// wraps it (errors.Is) in such errors.
var ErrPastRefused = errors.New("the backend refuses the question as bad input")

// PastRange is the steps a PastQuery is asked about: Start, Start+Step, ...
// up to End, both included.
type PastRange struct {
	Start, End time.Time
	Step       time.Duration
	// Window, for Hours, is the span before each step whose minutes are
	// counted; for States, the span from each step that is told.
	Window time.Duration
	// Resolution, for States, is the spacing of the instants a window is
	// read at; zero means a minute.
	Resolution time.Duration
	// Apps, for States, are the only apps asked about (indexes into the
	// apps given to PlanPast); nil asks about all the query's apps.
	Apps []int
}

// PastCount is one answer of a PastQuery: at one step, how many were up
// and how many down (apps for Counts, minutes of App for Hours).
type PastCount struct {
	// App is the index, in the apps given to PlanPast, of the app counted;
	// -1 when the count is over all the query's apps.
	App      int
	At       time.Time
	Up, Down int
}

// PastStater is a PastQuery that can tell each of its apps' states over
// the past, which the backfill writes into the record of availability over
// time (GET /api/availability and the outages). The monitor drives the
// questions: whole days first, then only where a day is mixed (some
// instants up, some down or without data) its hours, and so on down to
// minutes, each question over as few apps as it can, so that a long past
// of mostly steady apps costs few requests.
type PastStater interface {
	// States hands add, per app of the query (r.Apps, when set, names the
	// only apps asked about) and per window [t, t+r.Window) for t =
	// r.Start, r.Start+r.Step, ... up to r.End, how many of the window's
	// instants (the multiples of r.Resolution in it) the app had a value
	// at, and at how many of those it was down, read as a cycle reads the
	// app. An app without any value in a window may be left out.
	States(ctx context.Context, r PastRange, add func(PastState)) error
}

// PastScope is a PastStater whose query tells the states of only some of
// the apps given to PlanPast (a promsource query holds the apps of one
// planned range query), and asks them all in one request. The backfill
// bounds what one request reads, so it sizes a question of every app of
// such a query by the query's apps, not the backend's: at 10,000 apps in
// four queries a question then holds three days of minutes, not one.
// Without it a question of every app counts all the backend's apps.
type PastScope interface {
	// PastApps returns the apps (indexes into the apps given to PlanPast)
	// whose states a question with PastRange.Apps nil tells.
	PastApps() []int
}

// PastJoiner is a PastStater that can be asked, in one question, about
// apps of the other queries planned with it by the same PlanPast call:
// PastRange.Apps of its States may then name them too. The backfill asks
// the whole days of each query on its own, and the finer levels (the
// hours and minutes of the few apps that changed) of all the queries that
// join the first of a backend together: at 10,000 apps in promsource's
// four queries, the minutes of a day's changes are one request, not one
// of each query. Queries that do not join are asked each on its own.
type PastJoiner interface {
	PastStater
	// JoinsPast reports whether other's apps can be named in this
	// query's questions.
	JoinsPast(other PastStater) bool
}

// PastState is one answer of a PastStater: app App's instants over the
// window [At, At+Window).
type PastState struct {
	// App is the index, in the apps given to PlanPast, of the app.
	App    int
	At     time.Time
	Window time.Duration
	// Instants is how many instants the window holds; Present how many
	// had a value; Down how many of those said down. Present == Instants
	// and Down == 0 is a window wholly up; Present == 0 one without data.
	Instants, Present, Down int
}

// ReplayKeeper is an Authenticator whose replay cache can outlive a
// restart: a Monitor with a Store saves its entries with the rest of its
// state, and hands them back to the next monitor's Authenticator, so that
// a request captured before a restart cannot be replayed after it.
// *hmac.Verifier is one.
type ReplayKeeper interface {
	// ReplayEntries returns the entries to keep.
	ReplayEntries() []hmac.ReplayEntry
	// RestoreReplay takes back the entries of the last save, and returns
	// how many it kept.
	RestoreReplay([]hmac.ReplayEntry) int
}

var _ ReplayKeeper = (*hmac.Verifier)(nil)

func validateApp(s Source, a App) error {
	v, ok := s.(AppValidator)
	if !ok {
		return nil
	}
	return v.ValidateApp(a)
}

// reportsRequests reports whether s tells the monitor of each request.
func reportsRequests(s Source) bool {
	r, ok := s.(RequestReporter)
	return ok && r.ReportsRequests()
}
