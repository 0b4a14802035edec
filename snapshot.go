package availmon

import (
	"math"
	"time"

	"github.com/availmon/availmon/internal/answercache"
	"github.com/availmon/availmon/internal/cachedbody"
	"github.com/availmon/availmon/internal/history"
	"github.com/availmon/availmon/internal/jsontime"
	"github.com/availmon/availmon/internal/ledger"
	"github.com/availmon/availmon/internal/objectives"
)

// snapshot is everything the read endpoints show that only changes once a
// cycle. It is immutable once published; the JSON the endpoints send is
// encoded from it at most once, on first use, so a request costs a copy
// rather than an encoding of every app (bodies.go).
type snapshot struct {
	p             *plan // the apps, locations and backends shown
	history       []*history.Checks
	rts           *history.SharedRTs // what history's checks refer to
	seq           uint64             // snapshots published before this one: changes with every snapshot
	pastGen       uint64             // the monitor's pastGen when its book was taken
	eventSeq      uint64             // the first event not reflected in this snapshot
	at            time.Time          // end of the last cycle; zero before the first
	made          time.Time          // when it was published: what its answers are as of (meta.timestamp)
	cycleDuration time.Duration
	apps          []appView
	errs          []string // each app's error text, shared with the cycles' state (cycleState.setErr)
	locs          []locView
	up, down      int
	unavailable   int
	maintenance   int // apps in a maintenance window, in none of the three
	availability  *float64
	backends      []bool // connected, per backend
	backendSeen   []bool // asked by some cycle
	connectivity  string
	discovery     discoveryHealth
	day           history.Counts // every check of the last 24h
	book          *ledger.Book
	avail         answercache.Cache[availAnswer] // /api/availability answers (ledger_api.go)
	objs          *objectives.Snapshot
	objList       lazyBody
	objOne        []lazyBody

	appsJSON    lazyBody
	locJSON     []lazyBody
	summaryJSON lazyBody
	historyAns  historyCache
	metrics     metricsCache
	ctl         ctlCache // the operators' controls' views, bodies.go
}

// appView is an app as a snapshot shows it, packed into 64 bytes (its
// fields unpacked would take 144): a snapshot has one per app, and two
// snapshots are often alive.
type appView struct {
	appState
	day dayCounts
}

// dayCounts are an app's counts over the last 24 hours, in 24 bytes
// instead of 40: an app's day window counts at most 65,535 checks an hour
// of each kind (history.AppDay), so 32 bits hold a day's.
type dayCounts struct {
	rtSum                  float64
	up, down, unavail, rtN uint32
}

func compactCounts(c history.Counts) dayCounts {
	c32 := func(n int64) uint32 { return uint32(min(max(n, 0), math.MaxUint32)) }
	return dayCounts{rtSum: c.RTSum, up: c32(c.Up), down: c32(c.Down), unavail: c32(c.Unavailable), rtN: c32(c.RTN)}
}

func (d dayCounts) counts() history.Counts {
	return history.Counts{Up: int64(d.up), Down: int64(d.down), Unavailable: int64(d.unavail), RTSum: d.rtSum, RTN: int64(d.rtN)}
}

type locView struct {
	up, down, unavailable int
	maintenance           int
	availability          *float64
	day                   history.Counts
}

// Backend connectivity, as reported in prometheus_connectivity.
const (
	connConnected    = "connected"
	connDegraded     = "degraded"
	connDisconnected = "disconnected"
)

func (st *cycleState) snapshot(p *plan, seq uint64, now time.Time) *snapshot {
	s := &snapshot{
		p:             p,
		history:       st.history,
		errs:          st.shareErrs(),
		rts:           st.rts,
		seq:           seq,
		at:            st.lastCycle,
		made:          now,
		cycleDuration: st.lastDuration,
		backendSeen:   append([]bool(nil), st.backendSeen...),
		apps:          make([]appView, len(st.apps)),
		locs:          make([]locView, len(p.locations)),
		backends:      append([]bool(nil), st.backends...),
		day:           st.sysDay.Sum(now),
		locJSON:       make([]lazyBody, len(p.locations)),
	}
	for i, a := range st.apps {
		day := st.appDay.At(i)
		s.apps[i] = appView{appState: a, day: compactCounts(day.Sum(now))}
		l := &s.locs[p.appLocs[i]]
		switch {
		case a.maint():
			l.maintenance++
			s.maintenance++
		case !a.checked() || a.code == codeUnavailable:
			l.unavailable++
			s.unavailable++
		case a.code == codeUp:
			l.up++
			s.up++
		default:
			l.down++
			s.down++
		}
	}
	for i := range s.locs {
		l := &s.locs[i]
		l.availability = percent(int64(l.up), int64(l.up+l.down))
		l.day = st.locDay[i].Sum(now)
	}
	s.availability = percent(int64(s.up), int64(s.up+s.down))

	asked, answered := 0, 0
	for b, ok := range s.backends {
		if st.cycles > 0 && !s.backendSeen[b] {
			continue // no app uses it, so no cycle asks it: it cannot fail
		}
		asked++
		if ok {
			answered++
		}
	}
	switch {
	case answered == asked:
		s.connectivity = connConnected
	case answered == 0:
		s.connectivity = connDisconnected
	default:
		s.connectivity = connDegraded
	}
	return s
}

func (s *snapshot) appJSON(i int) appJSON {
	p := s.p
	a, v := p.apps[i], s.apps[i]
	loc := p.locations[p.appLocs[i]]
	out := appJSON{
		Name:          a.Name,
		Location:      a.Location,
		Status:        v.status(),
		Coordinates:   coordinatesJSON{Latitude: loc.Latitude, Longitude: loc.Longitude},
		Metric:        a.Metric,
		PrometheusURL: p.backends[p.backendOf[i]].URL,
		Error:         s.errs[i],
		Labels:        a.Labels,
		Maintenance:   v.maint(),
	}
	if v.checked() {
		out.LastCheck = jsontime.Time(v.lastCheckTime())
		rt := seconds(v.rt)
		out.ResponseTime = &rt
	}
	return out
}

func (s *snapshot) appsData() *cachedbody.Body {
	return s.appsJSON.getLarge(func() any {
		return cachedbody.LazyList[appJSON]{N: len(s.apps), Elem: s.appJSON}
	})
}

// locationsData is /api/locations' data, which says only what the
// configuration does: it is kept with the plan, not made again every cycle
// (1.2 MB of JSON at 100,000 apps, every two seconds in the benchmark).
func (s *snapshot) locationsData() *cachedbody.Body {
	p := s.p
	return p.locsJSON.get(func() any {
		out := make([]locationJSON, len(p.locations))
		for i, l := range p.locations {
			names := make([]string, len(p.locApps[i]))
			for j, ai := range p.locApps[i] {
				names[j] = p.apps[ai].Name
			}
			out[i] = locationJSON{Name: l.Name, Latitude: l.Latitude, Longitude: l.Longitude,
				AppsCount: len(names), Apps: names}
		}
		return out
	})
}

func (s *snapshot) locationData(li int) *cachedbody.Body {
	return s.locJSON[li].get(func() any {
		p := s.p
		l, v := p.locations[li], s.locs[li]
		apps := make([]locationAppJSON, len(p.locApps[li]))
		for j, ai := range p.locApps[li] {
			a := s.apps[ai]
			apps[j] = locationAppJSON{Name: p.apps[ai].Name, Status: a.status()}
			if a.checked() {
				apps[j].LastCheck = jsontime.Time(a.lastCheckTime())
			}
		}
		return locationDetailJSON{
			Name: l.Name, Latitude: l.Latitude, Longitude: l.Longitude,
			AppsCount: len(apps), Apps: apps,
			Summary: locationSummaryJSON{
				TotalApps: len(apps), UpCount: v.up, DownCount: v.down,
				UnavailableCount: v.unavailable, MaintenanceCount: v.maintenance,
				AvailabilityPercentage: v.availability,
			},
		}
	})
}

func (s *snapshot) summaryData() *cachedbody.Body {
	return s.summaryJSON.getLarge(func() any { return s.summary() })
}

// summary is the data of /api/metrics/summary, its lists made as they
// are written.
func (s *snapshot) summary() lazySummary {
	return lazySummary{
		head: summaryHeadJSON{
			TotalRequests:       s.day.Total(),
			TotalErrors:         s.day.Unavailable,
			AverageResponseTime: avgResponse(s.day),
			UptimePercentage:    uptime(s.day),
		},
		apps:      cachedbody.LazyList[appSummaryJSON]{N: len(s.apps), Elem: s.appSummary},
		locations: cachedbody.LazyList[locationSummaryItemJSON]{N: len(s.locs), Elem: s.locationSummary},
	}
}

func (s *snapshot) appSummary(i int) appSummaryJSON {
	a := &s.apps[i]
	day := a.day.counts()
	return appSummaryJSON{Name: s.p.apps[i].Name, Status: a.status(),
		Uptime24h: uptime(day), AvgResponseTime: avgResponse(day)}
}

func (s *snapshot) locationSummary(i int) locationSummaryItemJSON {
	l := &s.locs[i]
	return locationSummaryItemJSON{Name: s.p.locations[i].Name,
		AppsUp: l.up, AppsDown: l.down, AppsUnavailable: l.unavailable, AppsMaintenance: l.maintenance,
		Availability: uptime(l.day)}
}

func seconds(d time.Duration) float64 { return roundTo(d.Seconds(), 6) }
