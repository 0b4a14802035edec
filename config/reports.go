package config

import "github.com/availmon/availmon/period"

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
