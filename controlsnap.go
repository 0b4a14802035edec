package availmon

import (
	"bytes"
	"sync"
)

// ctlCache holds what the operators' controls derive from one snapshot,
// each part built on first use: the services' states, and the per-state
// index of /api/apps filters with each app's JSON. They are apart because
// every /metrics scrape needs the services (availmon_service_up) while
// filters are rare, and the filters' part costs some 50 bytes an app.
type ctlCache struct {
	once     sync.Once
	v        *ctlViews
	appsOnce sync.Once
	apps     *appViews
}

type ctlViews struct {
	services []serviceView
	svcJSON  lazyJSON
	svcOne   []lazyJSON
}

// appViews are what /api/apps filters read: the apps of each state, and
// each app's JSON, encoded lazily.
type appViews struct {
	byStatus map[Status][]int
	appJSON  [][]byte
	appOnce  []sync.Once
}

func (s *snapshot) ctlViews() *ctlViews {
	s.ctl.once.Do(func() {
		v := &ctlViews{
			services: make([]serviceView, len(s.p.ctl.services)),
			svcOne:   make([]lazyJSON, len(s.p.ctl.services)),
		}
		for i := range s.p.ctl.services {
			v.services[i] = s.p.ctl.services[i].evaluate(s.serviceStatus)
		}
		s.ctl.v = v
	})
	return s.ctl.v
}

func (s *snapshot) appViews() *appViews {
	s.ctl.appsOnce.Do(func() {
		v := &appViews{
			byStatus: make(map[Status][]int, 3),
			appJSON:  make([][]byte, len(s.apps)),
			appOnce:  make([]sync.Once, len(s.apps)),
		}
		for i, a := range s.apps {
			v.byStatus[a.status()] = append(v.byStatus[a.status()], i)
		}
		s.ctl.apps = v
	})
	return s.ctl.apps
}

// serviceStatus is an app's state as services count it: an app in
// maintenance counts as up, so planned work does not page anyone.
func (s *snapshot) serviceStatus(i int) Status {
	if s.apps[i].maint() {
		return StatusUp
	}
	return s.apps[i].status()
}

// appsList writes the JSON array of the apps idx, from each app's JSON
// encoded at most once per snapshot.
func (v *appViews) appsList(s *snapshot, idx []int) []byte {
	n := 2
	for _, i := range idx {
		n += len(v.app(s, i)) + 1
	}
	var b bytes.Buffer
	b.Grow(n)
	b.WriteByte('[')
	for j, i := range idx {
		if j > 0 {
			b.WriteByte(',')
		}
		b.Write(v.app(s, i))
	}
	b.WriteByte(']')
	return b.Bytes()
}

func (v *appViews) app(s *snapshot, i int) []byte {
	v.appOnce[i].Do(func() {
		b, err := marshal(s.appJSON(i))
		if err != nil {
			panic("availmon: encoding snapshot: " + err.Error())
		}
		v.appJSON[i] = bytes.TrimRight(b, "\n")
	})
	return v.appJSON[i]
}
