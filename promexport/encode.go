package promexport

import (
	"bytes"
	"slices"
	"strings"
	"unicode/utf8"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// availmon_up is most of a snapshot's exposition: one series per app. Made
// as const metrics and gathered through a registry it cost about 900 bytes
// of garbage an app every snapshot (label pairs, dto objects, the
// registry's checks), so for the text formats EncodeSnapshot writes it
// straight from the Snapshot, byte for byte as expfmt would, and
// availmon_unavailable too, which has a series per app when a backend is
// down. The other families are a few dozen series and keep the registry's
// way.

// EncodeSnapshot writes the families of s to buf in format f: the bytes
// that GatherSnapshot's families give through expfmt.NewEncoder(buf, f),
// without the encoder's Close (an OpenMetrics "# EOF" belongs after any
// families a server adds). An error is GatherSnapshot's.
func (e *Exporter) EncodeSnapshot(buf *bytes.Buffer, s *Snapshot, f expfmt.Format) error {
	om, direct := textFormat(f)
	// Sorted by name, as a registry gathers families.
	perApp := []struct {
		t    *appText
		rows []int32
	}{{t: &e.unavailable}, {t: &e.up}}
	for i := range perApp {
		if direct {
			perApp[i].rows, direct = perApp[i].t.rows(s)
		}
	}
	if !direct {
		mfs, err := e.GatherSnapshot(s)
		if err != nil {
			return err
		}
		return encodeFamilies(expfmt.NewEncoder(buf, f), mfs)
	}
	mfs, err := e.gather(snapshotCollector{e: e, s: s, withoutPerApp: true})
	if err != nil {
		return err
	}
	enc := expfmt.NewEncoder(buf, f)
	for _, pa := range perApp {
		at, _ := slices.BinarySearchFunc(mfs, pa.t.name, func(mf *dto.MetricFamily, name string) int {
			return strings.Compare(mf.GetName(), name)
		})
		if err := encodeFamilies(enc, mfs[:at]); err != nil {
			return err
		}
		mfs = mfs[at:]
		if len(pa.rows) > 0 { // a registry leaves an empty family out
			pa.t.write(buf, s, pa.rows, om)
		}
	}
	return encodeFamilies(enc, mfs)
}

func encodeFamilies(enc expfmt.Encoder, mfs []*dto.MetricFamily) error {
	for _, mf := range mfs {
		if err := enc.Encode(mf); err != nil {
			return err
		}
	}
	return nil
}

// textFormat tells whether EncodeSnapshot writes the per-app families itself in f,
// and whether f is OpenMetrics. The escaping= parameter changes nothing:
// it applies to names outside the legacy character set, and appText takes
// only names inside it.
func textFormat(f expfmt.Format) (openMetrics, ok bool) {
	switch f.FormatType() {
	case expfmt.TypeTextPlain:
		return false, true
	case expfmt.TypeOpenMetrics:
		// 2.0 has an encoder of its own.
		v := f.Version()
		return true, v == expfmt.OpenMetricsVersion_1_0_0 || v == expfmt.OpenMetricsVersion_0_0_1
	}
	return false, false
}

// appText writes a family with a series per app, availmon_up or
// availmon_unavailable, in the text formats.
type appText struct {
	name string
	// unavailable tells the family: availmon_unavailable, 1 for each
	// unavailable app, or availmon_up, 1 or 0 for each app up or down.
	unavailable bool
	// ok is false when the label names are not all distinct legacy
	// names: NewDesc would refuse them, and the registry's way reports it.
	ok bool
	// order lists the series' values in the order of their label names,
	// which is the order of the label pairs: 0 is the app, 1 its location,
	// 2 its backend when the family has it, then Labels.
	order []int
	// open[k] goes before the k-th value: the family name and brace, or
	// the previous value's closing quote, then the label name.
	open             []string
	nFixed, nLabels  int
	headText, headOM string // HELP and TYPE lines
}

// A series ends with its last value's quote, the brace and its value, 1 or
// 0 as expfmt writes them in each format.
const (
	upEndText   = "\"} 1\n"
	downEndText = "\"} 0\n"
	upEndOM     = "\"} 1.0\n"
	downEndOM   = "\"} 0.0\n"
)

// newAppText is the writer of family name, whose series carry the labels
// fixed (app, location, ...) and then exportLabels.
func newAppText(name, help string, unavailable bool, fixed, exportLabels []string) appText {
	names := slices.Concat(fixed, exportLabels)
	u := appText{name: name, unavailable: unavailable, ok: true, nFixed: len(fixed), nLabels: len(exportLabels),
		order: make([]int, len(names))}
	for i, n := range names {
		u.order[i] = i
		if !model.LegacyValidation.IsValidLabelName(n) || strings.HasPrefix(n, "__") ||
			slices.Contains(names[:i], n) {
			u.ok = false
		}
	}
	slices.SortStableFunc(u.order, func(a, b int) int { return strings.Compare(names[a], names[b]) })
	for k, i := range u.order {
		sep := `",`
		if k == 0 {
			sep = name + "{"
		}
		u.open = append(u.open, sep+names[i]+`="`)
	}
	head := func(quote bool) string {
		var b bytes.Buffer
		b.WriteString("# HELP " + name + " ")
		writeEscaped(&b, help, quote)
		b.WriteString("\n# TYPE " + name + " gauge\n")
		return b.String()
	}
	u.headText, u.headOM = head(false), head(true)
	return u
}

// value is the k-th value of a's series, in label name order.
func (u *appText) value(a *App, k int) string {
	switch i := u.order[k]; {
	case i == 0:
		return a.Name
	case i == 1:
		return a.Location
	case i < u.nFixed:
		return a.Backend
	default:
		return a.Labels[i-u.nFixed]
	}
}

// has tells whether a has a series in the family, as buildUp and
// collectUnavailable decide.
func (u *appText) has(a *App) bool {
	if u.unavailable {
		return a.Status == "unavailable"
	}
	return a.Status == "up" || a.Status == "down" // unknown is not down
}

func (u *appText) compare(a, b *App) int {
	for k := range u.order {
		if c := strings.Compare(u.value(a, k), u.value(b, k)); c != 0 {
			return c
		}
	}
	return 0
}

// rows are the indexes in s.Apps of the family's series, in the order a
// registry sorts them (by label values, in label name order). ok is false
// where the registry would fail (a value that is not UTF-8, a wrong
// number of labels, two series alike): the registry's way then reports
// the error as before.
func (u *appText) rows(s *Snapshot) (rows []int32, ok bool) {
	if !u.ok {
		return nil, false
	}
	rows = make([]int32, 0, len(s.Apps))
	for i := range s.Apps {
		a := &s.Apps[i]
		if !u.has(a) {
			continue
		}
		if len(a.Labels) != u.nLabels {
			return nil, false
		}
		for k := range u.order {
			if !utf8.ValidString(u.value(a, k)) {
				return nil, false
			}
		}
		rows = append(rows, int32(i))
	}
	slices.SortFunc(rows, func(x, y int32) int { return u.compare(&s.Apps[x], &s.Apps[y]) })
	for k := 1; k < len(rows); k++ {
		if u.compare(&s.Apps[rows[k-1]], &s.Apps[rows[k]]) == 0 {
			return nil, false
		}
	}
	return rows, true
}

// write writes the family of rows, as MetricFamilyToText or
// MetricFamilyToOpenMetrics would.
func (u *appText) write(buf *bytes.Buffer, s *Snapshot, rows []int32, om bool) {
	head, up, down := u.headText, upEndText, downEndText
	if om {
		head, up, down = u.headOM, upEndOM, downEndOM
	}
	buf.WriteString(head)
	for _, r := range rows {
		a := &s.Apps[r]
		for k, open := range u.open {
			buf.WriteString(open)
			writeEscaped(buf, u.value(a, k), true)
		}
		if u.unavailable || a.Status == "up" {
			buf.WriteString(up)
		} else {
			buf.WriteString(down)
		}
	}
}

// writeEscaped writes v escaped as expfmt escapes HELP text (quote false
// in the Prometheus text format) and label values (quote true).
func writeEscaped(buf *bytes.Buffer, v string, quote bool) {
	start := 0
	for i := 0; i < len(v); i++ {
		var esc string
		switch v[i] {
		case '\\':
			esc = `\\`
		case '\n':
			esc = `\n`
		case '"':
			if !quote {
				continue
			}
			esc = `\"`
		default:
			continue
		}
		buf.WriteString(v[start:i])
		buf.WriteString(esc)
		start = i + 1
	}
	buf.WriteString(v[start:])
}
