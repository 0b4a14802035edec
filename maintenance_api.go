package availmon

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/availmon/availmon/internal/jsontime"
	"github.com/prometheus/common/model"
)

// The maintenance API: GET /api/maintenance lists the windows,
// GET /api/maintenance/{id} shows one, POST /api/maintenance adds one and
// DELETE /api/maintenance/{id} removes one the API added. Writes are
// authenticated like POST /api/scrape-interval.

type maintenanceJSON struct {
	ID        string            `json:"id"`
	Source    string            `json:"source"` // "config" or "api"
	App       string            `json:"app,omitempty"`
	Location  string            `json:"location,omitempty"`
	Service   string            `json:"service,omitempty"`
	Labels    map[string]string `json:"labels,omitempty"`
	From      *jsontime.Time    `json:"from,omitempty"`
	To        *jsontime.Time    `json:"to,omitempty"`
	Cron      string            `json:"cron,omitempty"`
	Duration  string            `json:"duration,omitempty"`
	TimeZone  string            `json:"time_zone,omitempty"`
	Comment   string            `json:"comment,omitempty"`
	Active    bool              `json:"active"`
	NextStart jsontime.Time     `json:"next_start"` // null when it will not open again
	NextEnd   jsontime.Time     `json:"next_end"`
}

func windowJSON(w *maintWindow, now time.Time) maintenanceJSON {
	out := maintenanceJSON{ID: w.ID, Source: "api", App: w.App, Location: w.Location, Service: w.Service,
		Labels: w.Labels, Cron: w.Cron, TimeZone: w.TimeZone, Comment: w.Comment, Active: w.active(now)}
	if w.fromConfig {
		out.Source = "config"
	}
	if w.sched == nil {
		from, to := jsontime.Time(w.From), jsontime.Time(w.To)
		out.From, out.To = &from, &to
	} else {
		out.Duration = formatDuration(w.Duration)
		if out.TimeZone == "" {
			out.TimeZone = "UTC"
		}
	}
	start, end := w.next(now)
	out.NextStart, out.NextEnd = jsontime.Time(start), jsontime.Time(end)
	return out
}

func (m *Monitor) listMaintenance(w http.ResponseWriter, r *http.Request) {
	now := m.clock.Now()
	ws := m.maint.list()
	out := make([]maintenanceJSON, len(ws))
	for i, mw := range ws {
		out[i] = windowJSON(mw, now)
	}
	writeJSON(w, http.StatusOK, envelope{Data: out, Meta: countMetaJSON{Count: len(out), Timestamp: jsontime.Time(now)}})
}

func (m *Monitor) getMaintenance(w http.ResponseWriter, r *http.Request) {
	id, err := pathName(r)
	if err != nil {
		m.writeError(w, r, err)
		return
	}
	now := m.clock.Now()
	for _, mw := range m.maint.list() {
		if mw.ID == id {
			writeJSON(w, http.StatusOK, envelope{Data: windowJSON(mw, now), Meta: metaJSON{Timestamp: jsontime.Time(now)}})
			return
		}
	}
	m.writeError(w, r, notFoundError("maintenance window not found", fmt.Sprintf("no maintenance window has the id %q", id)))
}

func (m *Monitor) postMaintenance(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if !errors.As(err, &tooLarge) {
			err = validationError("the request body could not be read", err.Error())
		}
		m.writeError(w, r, err)
		return
	}
	win, err := parseMaintenanceBody(raw)
	if err != nil {
		m.writeError(w, r, validationError("invalid maintenance window", err.Error(), maintenanceAccepted))
		return
	}
	now := m.clock.Now()
	mw, err := m.maint.add(win, m.snap.Load().p, now)
	if err != nil {
		m.writeError(w, r, validationError("invalid maintenance window", strings.Split(err.Error(), "\n")...))
		return
	}
	m.log.Info("maintenance window added", "id", mw.ID, "comment", mw.Comment)
	writeJSON(w, http.StatusCreated, envelope{Data: windowJSON(mw, now), Meta: metaJSON{Timestamp: jsontime.Time(now)}})
}

func (m *Monitor) deleteMaintenance(w http.ResponseWriter, r *http.Request) {
	id, err := pathName(r)
	if err != nil {
		m.writeError(w, r, err)
		return
	}
	now := m.clock.Now()
	mw, err := m.maint.remove(id, now)
	switch {
	case errors.Is(err, errNoWindow):
		m.writeError(w, r, notFoundError("maintenance window not found", fmt.Sprintf("no maintenance window has the id %q", id)))
		return
	case err != nil:
		m.writeError(w, r, &apiError{status: http.StatusConflict, code: codeValidation, message: "the window cannot be deleted here", details: []string{err.Error()}})
		return
	}
	m.log.Info("maintenance window deleted", "id", id)
	writeJSON(w, http.StatusOK, envelope{Data: windowJSON(mw, now), Meta: metaJSON{Timestamp: jsontime.Time(now)}})
}

const maintenanceAccepted = `expected a JSON object: "app", "location", "service" (strings) and "labels" (an object of strings), at least one; ` +
	`then "from" and "to" (RFC 3339 times) for a one-off window, "duration" (such as 2h) alone for one that starts now, ` +
	`or "cron" (five fields), "duration" and "time_zone" (such as Europe/Berlin) for a recurring one; "comment" optional`

// maintenanceBody is the JSON of POST /api/maintenance.
type maintenanceBody struct {
	App      string            `json:"app"`
	Location string            `json:"location"`
	Service  string            `json:"service"`
	Labels   map[string]string `json:"labels"`
	From     string            `json:"from"`
	To       string            `json:"to"`
	Cron     string            `json:"cron"`
	Duration string            `json:"duration"`
	TimeZone string            `json:"time_zone"`
	Comment  string            `json:"comment"`
}

// parseMaintenanceBody reads one JSON object with no unknown and no
// repeated members; the window's own rules are checked by compile.
func parseMaintenanceBody(raw []byte) (MaintenanceWindow, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return MaintenanceWindow{}, errors.New("the body is empty")
	}
	if err := noRepeatedMembers(raw); err != nil {
		return MaintenanceWindow{}, err
	}
	var b maintenanceBody
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		return MaintenanceWindow{}, fmt.Errorf("the body is not the expected JSON object: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return MaintenanceWindow{}, errors.New("the body has data after the JSON object")
	}
	w := MaintenanceWindow{App: b.App, Location: b.Location, Service: b.Service, Labels: b.Labels,
		Cron: b.Cron, TimeZone: b.TimeZone, Comment: b.Comment}
	var err error
	if b.From != "" {
		if w.From, err = time.Parse(time.RFC3339, b.From); err != nil {
			return w, fmt.Errorf("from %q is not an RFC 3339 time such as 2026-11-22T02:00:00Z", b.From)
		}
	}
	if b.To != "" {
		if w.To, err = time.Parse(time.RFC3339, b.To); err != nil {
			return w, fmt.Errorf("to %q is not an RFC 3339 time such as 2026-11-22T04:00:00Z", b.To)
		}
	}
	if b.Duration != "" {
		d, err := model.ParseDuration(b.Duration)
		if err != nil {
			return w, fmt.Errorf("duration %q is not a duration such as 30m or 2h", b.Duration)
		}
		w.Duration = time.Duration(d)
	}
	return w, nil
}

// noRepeatedMembers refuses JSON whose objects, at any depth, repeat a
// member: a decoder would keep the last and hide the first.
func noRepeatedMembers(raw []byte) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	var walk func(depth int) error
	walk = func(depth int) error {
		if depth > 8 {
			return errors.New("the body is nested too deeply")
		}
		tok, err := dec.Token()
		if err != nil {
			return fmt.Errorf("the body is not JSON: %v", err)
		}
		switch tok {
		case json.Delim('{'):
			seen := make(map[string]bool)
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return fmt.Errorf("the body is not JSON: %v", err)
				}
				k := kt.(string)
				if seen[k] {
					return fmt.Errorf("the member %q is given more than once", k)
				}
				seen[k] = true
				if err := walk(depth + 1); err != nil {
					return err
				}
			}
			_, err = dec.Token()
			return err
		case json.Delim('['):
			for dec.More() {
				if err := walk(depth + 1); err != nil {
					return err
				}
			}
			_, err = dec.Token()
			return err
		}
		return nil
	}
	return walk(0)
}
