package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/availmon/availmon/config"
	"github.com/availmon/availmon/internal/promtest"
)

// A reload that changes only scrape_interval, in a file without
// scrape_timeout, needs no restart and warns of none: the monitor's
// timeout follows the interval (5s now, from 10s).
func TestReloadIntervalAloneWarnsNothing(t *testing.T) {
	body := readFile(t, writeConfig(t, ""))
	path := filepath.Join(t.TempDir(), "availmon.yaml")
	withInterval := func(iv string) {
		t.Helper()
		b, ok := strings.CutPrefix(body, "scrape_interval: 1s\nscrape_timeout: 500ms\n")
		if !ok {
			t.Fatalf("writeConfig no longer starts with the interval and timeout:\n%s", body)
		}
		writeFile(t, path, "scrape_interval: "+iv+"\n"+b)
	}
	withInterval("30s")
	var logs promtest.SyncBuffer
	r := logReloader(t, path, config.Load, &logs)
	withInterval("5s")
	ch, err := r.reload(t.Context())
	if err != nil || len(ch.RestartNeeded) != 0 {
		t.Errorf("reload = restart_needed %v, %v; want none", ch.RestartNeeded, err)
	}
	if strings.Contains(logs.String(), "restart") {
		t.Errorf("the log warns of a restart:\n%s", logs.String())
	}
	rec := httptest.NewRecorder()
	r.m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/config", nil))
	var cfg struct {
		Data struct {
			ScrapeInterval string `json:"scrape_interval"`
			ScrapeTimeout  string `json:"scrape_timeout"`
		}
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &cfg); err != nil || cfg.Data.ScrapeInterval != "5s" || cfg.Data.ScrapeTimeout != "5s" {
		t.Errorf("/api/config after the reload: %+v, %v; want interval and timeout 5s", cfg.Data, err)
	}
}
