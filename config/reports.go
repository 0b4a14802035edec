package config

import (
	"fmt"
	"time"

	"github.com/availmon/availmon/period"
)

// Reports is the reports section: how figures over calendar periods are
// counted.
type Reports struct {
	// TimeZone is reports.time_zone, the IANA zone calendar periods and
	// steps of /api/availability are counted in when a request names none
	// (availmon.Options.TimeZone); empty means UTC.
	TimeZone string
}

type fileReports struct {
	TimeZone string `yaml:"time_zone"`
}

func (p *parser) checkReports(raw *fileReports) Reports {
	if raw == nil || raw.TimeZone == "" {
		return Reports{}
	}
	if _, err := period.LoadLocation(raw.TimeZone); err != nil {
		p.badAt("reports.time_zone", "reports.time_zone: %v", err)
		return Reports{}
	}
	return Reports{TimeZone: raw.TimeZone}
}

// checkExportWindows reads export_windows: windows of /api/availability,
// each once.
func (p *parser) checkExportWindows(raw []string) []period.Window {
	var out []period.Window
	seen := make(map[time.Duration]bool)
	for i, text := range raw {
		w, err := period.ParseWindow(text)
		switch {
		case err != nil:
			p.badAt(fmt.Sprintf("export_windows[%d]", i), "export_windows[%d]: %v", i, err)
		case seen[w.Duration()]:
			p.badAt(fmt.Sprintf("export_windows[%d]", i), "export_windows[%d]: %s is given twice", i, text)
		default:
			seen[w.Duration()] = true
			out = append(out, w)
		}
	}
	return out
}
