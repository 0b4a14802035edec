package main

import (
	"context"
	"fmt"
	"github.com/availmon/availmon/internal/statefile"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/availmon/availmon/config"
	"github.com/availmon/availmon/filestore"
	"github.com/availmon/availmon/internal/ledger"
	"github.com/availmon/availmon/timeline"
)

// past is the synthetic record of availability over time a run starts
// with: days of it before the start, every app up but for its outages.
// outages below 1 is the share of apps that have one outage a day; from 1
// on, how many every app has a day. random places them at random times,
// of random lengths (randomDayOutages), rather than evenly over the day.
type past struct {
	days    int
	outages float64
	random  bool
	// chunkSpans bounds the spans a random past fills at once (0:
	// pastChunkSpans), for tests to fill it a day at a time.
	chunkSpans int
}

// outageLen is how long each synthetic outage lasts.
const outageLen = 10 * time.Minute

// parsePastDays reads -past: days as "400d", or a duration of whole days.
func parsePastDays(s string) (int, error) {
	if s == "" || s == "0" {
		return 0, nil
	}
	if d, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(d)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("bad -past %q: want days such as 400d", s)
		}
		return n, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 || d%(24*time.Hour) != 0 {
		return 0, fmt.Errorf("bad -past %q: want days such as 400d", s)
	}
	return int(d / (24 * time.Hour)), nil
}

// outagesOf is how many outages app i has a day.
func (p past) outagesOf(i int) int {
	if p.outages >= 1 {
		return int(p.outages)
	}
	if p.outages <= 0 {
		return 0
	}
	every := int(math.Round(1 / p.outages))
	if i%every == 0 {
		return 1
	}
	return 0
}

// writePast writes, into the state directory the availmon binary run in
// dir reads, a state that holds only the synthetic past of n apps in locs
// locations up to now: the binary restores it as it restores its own.
func writePast(dir string, p past, n, locs int, now time.Time) (int, error) {
	st, err := filestore.New(filestore.Options{Dir: filepath.Join(dir, config.DefaultStoragePath)})
	if err != nil {
		return 0, err
	}
	data := pastState(pastLedger(p, n, locs, now).AppendBinary(nil), now)
	return len(data), st.Save(context.Background(), data)
}

// pastLedger is the ledger of n apps in locs locations (named as
// availmonConfig names them) with p's days before now.
func pastLedger(p past, n, locs int, now time.Time) *ledger.Ledger {
	var lay ledger.Layout
	for l := range locs {
		lay.Locations = append(lay.Locations, fmt.Sprintf("location-%03d", l))
	}
	for i := range n {
		lay.Apps = append(lay.Apps, ledger.AppRef{Name: appName(i), Location: lay.Locations[i%locs]})
	}
	start := now.Truncate(24*time.Hour).AddDate(0, 0, -p.days)
	l := ledger.New(ledger.Options{})
	l.SetLayout(start, lay, nil)
	hold := 24*time.Hour + time.Second
	if p.random {
		fillRandom(l, p, n, start)
	} else {
		checkRegular(l, p, n, start, hold)
	}
	for _, at := range []time.Time{start.AddDate(0, 0, p.days), now} {
		for i := range n {
			l.Check(i, at, timeline.Up, hold, false)
		}
		l.EndCycle(at, hold, nil, nil)
	}
	return l
}

// checkRegular feeds l p's days from start as cycles: a check a day holds
// for the day; an outage is a down check and an up one outageLen later,
// the day's outages spread evenly over it.
func checkRegular(l *ledger.Ledger, p past, n int, start time.Time, hold time.Duration) {
	var changes []ledger.Change
	for d := range p.days {
		day := start.AddDate(0, 0, d)
		for i := range n {
			l.Check(i, day, timeline.Up, hold, false)
		}
		l.EndCycle(day, hold, nil, nil)
		per := p.outagesOf(0) // app 0 has the most
		gap := 24 * time.Hour / time.Duration(per+1)
		for k := 1; k <= per; k++ {
			at := day.Add(time.Duration(k) * gap)
			for i := range n {
				if p.outagesOf(i) >= k {
					l.Check(i, at, timeline.Down, hold, false)
				}
			}
			l.EndCycle(at, hold, nil, nil)
			for i := range n {
				if p.outagesOf(i) >= k {
					l.Check(i, at.Add(outageLen), timeline.Up, hold, false)
				}
			}
			changes = l.EndCycle(at.Add(outageLen), hold, nil, changes[:0])
		}
	}
}

// pastState is a state file's data that holds nothing but the ledger
// section led: no app, location, minute, replay or maintenance window of
// the API.
func pastState(led []byte, savedAt time.Time) []byte {
	return statefile.Encode(&statefile.State{SavedAt: savedAt, Ledger: led})
}
