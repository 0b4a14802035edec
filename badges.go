package availmon

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"github.com/availmon/availmon/internal/cachedbody"
	"github.com/availmon/availmon/internal/history"
	"github.com/availmon/availmon/internal/ledger"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"
)

// Badges: GET /api/badges/{apps,locations,services}/{name}.svg answers a
// small SVG that says the state of an app, location or service, or with
// ?value=uptime its 24h uptime, for READMEs and wikis. The ETag is the hash
// of the SVG, so a client revalidates cheaply and gets 304 while nothing
// changed.

// badge is what one badge says.
type badge struct {
	label, message, color string
}

// Badge colours, as shields.io uses them.
const (
	colorUp          = "#4c1"
	colorDegraded    = "#dfb317"
	colorDown        = "#e05d44"
	colorUnavailable = "#9f9f9f"
	colorMaintenance = "#007ec6"
)

var stateColors = map[string]string{
	string(StatusUp): colorUp, ServiceDegraded: colorDegraded, string(StatusDown): colorDown,
	string(StatusUnavailable): colorUnavailable, "maintenance": colorMaintenance,
}

const badgeValues = "accepted query parameters: value=state|uptime|objective (default state), window (such as 30d) or period (such as 2026-11) for the availability over it; others are ignored"

// badgeKind is the kind of thing a badge route shows.
type badgeKind int

const (
	badgeApp badgeKind = iota
	badgeLocation
	badgeService
)

func (m *Monitor) badgeHandler(kind badgeKind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		b, err := m.badgeFor(r, kind)
		if err != nil {
			m.writeError(w, r, err)
			return
		}
		svg := b.svg()
		sum := sha256.Sum256(svg)
		etag := `"` + hex.EncodeToString(sum[:12]) + `"`
		h := w.Header()
		h.Set("ETag", etag)
		// Shown in pages of other sites: let caches keep it but ask again.
		h.Set("Cache-Control", "no-cache")
		if cachedbody.ETagMatch(r.Header.Values("If-None-Match"), etag) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		h.Set("Content-Type", "image/svg+xml; charset=utf-8")
		h.Set("Content-Length", fmt.Sprint(len(svg)))
		w.WriteHeader(http.StatusOK)
		w.Write(svg)
	}
}

// badgeFor reads the request and says what the badge shows.
func (m *Monitor) badgeFor(r *http.Request, kind badgeKind) (badge, error) {
	value, err := badgeValue(r.URL.RawQuery)
	if err != nil {
		return badge{}, err
	}
	file, err := pathName(r)
	if err != nil {
		return badge{}, err
	}
	name, ok := strings.CutSuffix(file, ".svg")
	if !ok {
		return badge{}, notFoundError("no such badge", fmt.Sprintf("a badge's path ends in .svg, not %q", file))
	}
	s := m.snap.Load()
	if value == "objective" {
		return objectiveBadge(s, kind, name)
	}
	p := s.p
	var state string
	var day history.Counts
	switch kind {
	case badgeApp:
		i, ok := p.appIndex[name]
		if !ok {
			return badge{}, notFoundError("application not found", fmt.Sprintf("no application is named %q", name))
		}
		state, day = string(s.apps[i].status()), s.apps[i].day.counts()
		if s.apps[i].maint() {
			state = "maintenance"
		}
	case badgeLocation:
		li, ok := p.locIndex[name]
		if !ok {
			return badge{}, notFoundError("location not found", fmt.Sprintf("no location is named %q", name))
		}
		state, day = locationState(s.locs[li]), s.locs[li].day
	case badgeService:
		i, ok := p.ctl.serviceIndex[name]
		if !ok {
			return badge{}, notFoundError("service not found", fmt.Sprintf("no service is named %q", name))
		}
		state = s.ctlViews().services[i].state
		for _, apps := range p.ctl.services[i].locApps {
			for _, ai := range apps {
				day.Merge(s.apps[ai].day.counts())
			}
		}
	}
	b := badge{label: name, message: state, color: stateColors[state]}
	if value == "uptime" {
		b.message, b.color = "no data", colorUnavailable
		if u := uptime(day); u != nil {
			b.message = fmt.Sprintf("%.2f%% 24h", *u)
			b.color = uptimeColor(*u)
		}
	}
	over, err := m.badgeOver(r.URL.RawQuery, s, kind, name)
	if err != nil {
		return badge{}, err
	}
	if over != nil {
		return *over, nil
	}
	return b, nil
}

// locationState is up when every app with a known state is up, down when
// none is, degraded in between, unavailable when none is known.
func locationState(l locView) string {
	switch {
	case l.up+l.down == 0:
		return string(StatusUnavailable)
	case l.down == 0:
		return string(StatusUp)
	case l.up == 0:
		return string(StatusDown)
	}
	return ServiceDegraded
}

func uptimeColor(u float64) string {
	switch {
	case u >= 99.9:
		return colorUp
	case u >= 99:
		return colorDegraded
	}
	return colorDown
}

// badgeValue reads ?value= and ignores every other parameter: a badge is an
// image in pages the operator does not control (README files add
// cache-busters such as ?v=2), so a parameter it does not know must not break
// it. A pair it cannot decode is one it does not know, unless its key is
// value.
func badgeValue(rawQuery string) (string, error) {
	v, err := badgeParam(rawQuery, "value")
	switch {
	case err != nil:
		return "", err
	case v == "":
		return "state", nil
	case v != "state" && v != "uptime" && v != "objective":
		return "", validationError("invalid value", fmt.Sprintf("value %q is not supported", v), badgeValues)
	}
	return v, nil
}

// objectiveBadge shows the attainment of the first objective that covers
// the app, location or service against its target, coloured by its state.
func objectiveBadge(s *snapshot, kind badgeKind, name string) (badge, error) {
	k := [...]string{badgeApp: "app", badgeLocation: "location", badgeService: "service"}[kind]
	i, ok := s.objs.Covering(k, name)
	if !ok {
		return badge{}, notFoundError("objective not found", fmt.Sprintf("no objective covers the %s %q", k, name))
	}
	st := s.objs.Status(i)
	b := badge{label: s.objs.Name(i), message: "no data", color: colorUnavailable}
	target := fmt.Sprintf("%g%%", roundTo(s.objs.Target(i)*100, 6))
	if st.Attainment.OK {
		b.message = fmt.Sprintf("%.3f%% / %s", st.Attainment.Value*100, target)
		b.color = map[string]string{"ok": colorUp, "at_risk": colorDegraded, "breached": colorDown}[st.State.String()]
	}
	return b, nil
}

// Text longer than this is cut with an ellipsis: a badge is a line.
const badgeMaxRunes = 40

// svg draws the badge: a grey label and a coloured message, sized by an
// estimate of the text's width (Verdana 11px averages about 7px a glyph).
func (b badge) svg() []byte {
	label, msg := clip(b.label), clip(b.message)
	lw := 10 + 7*utf8.RuneCountInString(label)
	mw := 10 + 7*utf8.RuneCountInString(msg)
	var sb strings.Builder
	esc := func(s string) string {
		var e strings.Builder
		xml.EscapeText(&e, []byte(s))
		return e.String()
	}
	fmt.Fprintf(&sb, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="20" role="img" aria-label="%s: %s">`, lw+mw, esc(label), esc(msg))
	fmt.Fprintf(&sb, `<title>%s: %s</title>`, esc(label), esc(msg))
	fmt.Fprintf(&sb, `<rect width="%d" height="20" fill="#555"/><rect x="%d" width="%d" height="20" fill="%s"/>`, lw, lw, mw, b.color)
	fmt.Fprintf(&sb, `<g fill="#fff" text-anchor="middle" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11">`)
	fmt.Fprintf(&sb, `<text x="%d" y="14">%s</text><text x="%d" y="14">%s</text></g></svg>`, lw/2, esc(label), lw+mw/2, esc(msg))
	return []byte(sb.String())
}

func clip(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if utf8.RuneCountInString(s) <= badgeMaxRunes {
		return s
	}
	r := []rune(s)
	return string(r[:badgeMaxRunes-1]) + "…"
}

// badgeOver is the badge of ?window= or ?period=: the availability over
// that rolling window or calendar period (in reports.time_zone), from the
// snapshot's ledger, as /api/availability counts it. nil when the query
// names neither.
func (m *Monitor) badgeOver(rawQuery string, s *snapshot, kind badgeKind, name string) (*badge, error) {
	window, err := badgeParam(rawQuery, "window")
	if err != nil {
		return nil, err
	}
	per, err := badgeParam(rawQuery, "period")
	if err != nil || window == "" && per == "" {
		return nil, err
	}
	aq := availQuery{loc: m.cfg.timeZone}
	if err := aq.parseRange(window, per, s.book.At); err != nil {
		return nil, err
	}
	lk := [...]ledger.Kind{badgeApp: ledger.App, badgeLocation: ledger.Location, badgeService: ledger.Service}[kind]
	i, ok := s.book.Lookup(lk, name)
	if !ok {
		return nil, notFoundError(lk.String()+" not found", fmt.Sprintf("no %s is named %q", lk, name))
	}
	q := ledger.Query{From: aq.rng.Start, To: aq.rng.End}
	var f ledger.Figures
	switch lk {
	case ledger.App:
		f = s.book.App(i, q)
	case ledger.Location:
		f = s.book.Location(i, s.book.LocationApps(i), q)
	default:
		f = s.book.Service(i, q)
	}
	b := &badge{label: name, message: "no data " + window + per, color: colorUnavailable}
	if a, ok := f.Availability(); ok {
		u := roundTo(100*a, 4)
		b.message, b.color = fmt.Sprintf("%.2f%% %s%s", u, window, per), uptimeColor(u)
	}
	return b, nil
}

// badgeParam reads one parameter of a badge as badgeValue reads value.
func badgeParam(rawQuery, name string) (string, error) {
	var vals []string
	for pair := range strings.SplitSeq(rawQuery, "&") {
		k, v, _ := strings.Cut(pair, "=")
		if key, err := url.QueryUnescape(k); err != nil || key != name {
			continue
		}
		dec, err := url.QueryUnescape(v)
		if err != nil {
			return "", validationError("invalid query string", err.Error(), badgeValues)
		}
		vals = append(vals, dec)
	}
	switch {
	case len(vals) == 0:
		return "", nil
	case len(vals) != 1 || vals[0] == "":
		return "", validationError("invalid "+name, fmt.Sprintf("%s %q is not one value", name, strings.Join(vals, ",")), badgeValues)
	}
	return vals[0], nil
}
