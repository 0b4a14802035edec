package availmon

import (
	"bytes"
	"sync"
)

// ctlCache holds what the operators' controls derive from one snapshot,
// built on first use: the per-state index of /api/apps filters, each app's
// JSON, and the services' states.
type ctlCache struct {
	once sync.Once
	v    *ctlViews
}

type ctlViews struct {
	byStatus map[Status][]int
	appJSON  [][]byte // each app's JSON in /api/apps, encoded lazily
	appOnce  []sync.Once
	services []serviceView
	svcJSON  lazyJSON
	svcOne   []lazyJSON
}

func (s *snapshot) ctlViews() *ctlViews {
	s.ctl.once.Do(func() {
		v := &ctlViews{
			byStatus: make(map[Status][]int, 3),
			appJSON:  make([][]byte, len(s.apps)),
			appOnce:  make([]sync.Once, len(s.apps)),
			services: make([]serviceView, len(s.p.ctl.services)),
			svcOne:   make([]lazyJSON, len(s.p.ctl.services)),
		}
		for i, a := range s.apps {
			v.byStatus[a.status] = append(v.byStatus[a.status], i)
		}
		for i := range s.p.ctl.services {
			v.services[i] = s.p.ctl.services[i].evaluate(s.serviceStatus)
		}
		s.ctl.v = v
	})
	return s.ctl.v
}

// serviceStatus is an app's state as services count it: an app in
// maintenance counts as up, so planned work does not page anyone.
func (s *snapshot) serviceStatus(i int) Status {
	if s.apps[i].maint {
		return StatusUp
	}
	return s.apps[i].status
}

// appsList writes the JSON array of the apps idx, from each app's JSON
// encoded at most once per snapshot.
func (v *ctlViews) appsList(s *snapshot, idx []int) []byte {
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

func (v *ctlViews) app(s *snapshot, i int) []byte {
	v.appOnce[i].Do(func() {
		b, err := marshal(s.appJSON(i))
		if err != nil {
			panic("availmon: encoding snapshot: " + err.Error())
		}
		v.appJSON[i] = bytes.TrimRight(b, "\n")
	})
	return v.appJSON[i]
}
