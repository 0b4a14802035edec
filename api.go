package availmon

import (
	"time"

	"github.com/prometheus/common/model"
)

// The wire shapes of the API. Field names and types follow the interface's
// tables; members it does not list (such as the unavailable counts) are
// additions the rulings allow.

// jsonTime is an ISO 8601 UTC timestamp with milliseconds; the zero time is
// encoded as null ("not known yet").
type jsonTime time.Time

const timeFormat = "2006-01-02T15:04:05.000Z07:00"

func (t jsonTime) MarshalJSON() ([]byte, error) {
	if time.Time(t).IsZero() {
		return []byte("null"), nil
	}
	b := make([]byte, 0, len(timeFormat)+2)
	b = append(b, '"')
	b = time.Time(t).UTC().AppendFormat(b, timeFormat)
	return append(b, '"'), nil
}

// formatDuration writes d in Prometheus duration syntax ("30s", "1h30m").
func formatDuration(d time.Duration) string { return model.Duration(d).String() }

// formatUptime writes d to the second, in the form "2h30m15s".
func formatUptime(d time.Duration) string { return max(0, d).Truncate(time.Second).String() }

type coordinatesJSON struct {
	Latitude  float64 `json:"latitude"`
	Longitude float64 `json:"longitude"`
}

type appJSON struct {
	Name          string          `json:"name"`
	Location      string          `json:"location"`
	Status        Status          `json:"status"`
	LastCheck     jsonTime        `json:"last_check"`
	ResponseTime  *float64        `json:"response_time"`
	Coordinates   coordinatesJSON `json:"coordinates"`
	Metric        string          `json:"metric"`
	PrometheusURL string          `json:"prometheus_url"`
	Error         string          `json:"error,omitempty"`
	// Labels and Maintenance are what the operators' controls set; both are
	// left out while unset, so that the many apps without them answer short.
	Labels      map[string]string `json:"labels,omitempty"`
	Maintenance bool              `json:"maintenance,omitempty"`
}

type appDetailJSON struct {
	appJSON
	History []historyEntryJSON `json:"history"`
}

type historyEntryJSON struct {
	Timestamp    jsonTime `json:"timestamp"`
	Status       Status   `json:"status"`
	ResponseTime float64  `json:"response_time"`
	Error        string   `json:"error,omitempty"`
}

type listMetaJSON struct {
	Count      int      `json:"count"`
	Timestamp  jsonTime `json:"timestamp"`
	LastUpdate jsonTime `json:"last_update"`
}

type countMetaJSON struct {
	Count     int      `json:"count"`
	Timestamp jsonTime `json:"timestamp"`
}

type metaJSON struct {
	Timestamp jsonTime `json:"timestamp"`
}

type summaryMetaJSON struct {
	Timestamp jsonTime `json:"timestamp"`
	Period    string   `json:"period"`
}

type locationJSON struct {
	Name      string   `json:"name"`
	Latitude  float64  `json:"latitude"`
	Longitude float64  `json:"longitude"`
	AppsCount int      `json:"apps_count"`
	Apps      []string `json:"apps"`
}

type locationDetailJSON struct {
	Name      string              `json:"name"`
	Latitude  float64             `json:"latitude"`
	Longitude float64             `json:"longitude"`
	AppsCount int                 `json:"apps_count"`
	Apps      []locationAppJSON   `json:"apps"`
	Summary   locationSummaryJSON `json:"summary"`
}

type locationAppJSON struct {
	Name      string   `json:"name"`
	Status    Status   `json:"status"`
	LastCheck jsonTime `json:"last_check"`
}

type locationSummaryJSON struct {
	TotalApps              int      `json:"total_apps"`
	UpCount                int      `json:"up_count"`
	DownCount              int      `json:"down_count"`
	UnavailableCount       int      `json:"unavailable_count"`
	MaintenanceCount       int      `json:"maintenance_count,omitempty"`
	AvailabilityPercentage *float64 `json:"availability_percentage"`
}

type configJSON struct {
	ScrapeInterval string   `json:"scrape_interval"`
	ScrapeTimeout  string   `json:"scrape_timeout"`
	LogLevel       string   `json:"log_level"`
	TotalApps      int      `json:"total_apps"`
	TotalLocations int      `json:"total_locations"`
	Version        string   `json:"version"`
	Uptime         string   `json:"uptime"`
	PrometheusURLs []string `json:"prometheus_urls"`
	HistorySize    int      `json:"history_size"`
	MaxParallel    int      `json:"max_parallel"`
}

type intervalUpdateJSON struct {
	Interval         string   `json:"interval"`
	PreviousInterval string   `json:"previous_interval"`
	UpdatedAt        jsonTime `json:"updated_at"`
}

type healthJSON struct {
	Status    string   `json:"status"`
	Timestamp jsonTime `json:"timestamp"`
	Uptime    string   `json:"uptime"`
	Version   string   `json:"version"`
}

type statusJSON struct {
	SystemStatus            string   `json:"system_status"`
	OverallAvailability     *float64 `json:"overall_availability"`
	TotalApplications       int      `json:"total_applications"`
	ApplicationsUp          int      `json:"applications_up"`
	ApplicationsDown        int      `json:"applications_down"`
	ApplicationsUnavailable int      `json:"applications_unavailable"`
	ApplicationsMaintenance int      `json:"applications_maintenance,omitempty"`
	TotalLocations          int      `json:"total_locations"`
	LastUpdate              jsonTime `json:"last_update"`
	PrometheusConnectivity  string   `json:"prometheus_connectivity"`
	// Discovery is left out when no discovery rule is configured.
	Discovery *discoveryStatusJSON `json:"discovery,omitempty"`

	// Storage tells how the saves of a monitor with a Store go.
	Storage *storageJSON `json:"storage,omitempty"`

	// Backfill tells how far the backfill from the backends' past has come.
	Backfill *backfillStatusJSON `json:"backfill"`
}

type statusHistoryJSON struct {
	Period     string          `json:"period"`
	Resolution string          `json:"resolution"`
	DataPoints []dataPointJSON `json:"data_points"`
}

type dataPointJSON struct {
	Timestamp           jsonTime `json:"timestamp"`
	OverallAvailability *float64 `json:"overall_availability"`
	AppsUp              int      `json:"apps_up"`
	AppsDown            int      `json:"apps_down"`
	AppsUnavailable     int      `json:"apps_unavailable"`
}

type summaryJSON struct {
	TotalRequests       int64                     `json:"total_requests"`
	TotalErrors         int64                     `json:"total_errors"`
	AverageResponseTime *float64                  `json:"average_response_time"`
	UptimePercentage    *float64                  `json:"uptime_percentage"`
	Apps                []appSummaryJSON          `json:"apps_summary"`
	Locations           []locationSummaryItemJSON `json:"locations_summary"`
}

type appSummaryJSON struct {
	Name            string   `json:"name"`
	Status          Status   `json:"status"`
	Uptime24h       *float64 `json:"uptime_24h"`
	AvgResponseTime *float64 `json:"avg_response_time"`
}

type locationSummaryItemJSON struct {
	Name            string   `json:"name"`
	AppsUp          int      `json:"apps_up"`
	AppsDown        int      `json:"apps_down"`
	AppsUnavailable int      `json:"apps_unavailable"`
	AppsMaintenance int      `json:"apps_maintenance,omitempty"`
	Availability    *float64 `json:"availability"`
}

// errorJSON is the `error` member of the error envelope.
type errorJSON struct {
	Code      string   `json:"code"`
	Message   string   `json:"message"`
	Details   []string `json:"details"`
	RequestID string   `json:"request_id"`
}
