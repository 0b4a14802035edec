package web_test

// The parts of the API that other branches build, in the shapes the
// shared contract gives them: the backfill member of /api/status and
// /api/objectives. The page must show them when they are there and nothing
// when they are not; the test sets what they answer through the control
// server. Unset, every request goes to the monitor unchanged.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

type apiStubs struct {
	next http.Handler

	mu         sync.Mutex
	backfill   map[string]any // nil: /api/status as the monitor answers it
	objectives string         // "": the monitor's answer (404); "empty" or "list"
}

// apiPath is the API path of r, the /status prefix removed.
func apiPath(r *http.Request) string {
	return strings.TrimPrefix(r.URL.Path, "/status")
}

func (s *apiStubs) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	backfill, objectives := s.backfill, s.objectives
	s.mu.Unlock()
	p := apiPath(r)
	switch {
	case p == "/api/status" && backfill != nil:
		s.statusWithBackfill(w, r, backfill)
	case objectives != "" && (p == "/api/objectives" || strings.HasPrefix(p, "/api/objectives/")):
		serveObjectives(w, strings.TrimPrefix(p, "/api/objectives"), objectives == "list")
	default:
		s.next.ServeHTTP(w, r)
	}
}

func (s *apiStubs) statusWithBackfill(w http.ResponseWriter, r *http.Request, backfill map[string]any) {
	rec := httptest.NewRecorder()
	s.next.ServeHTTP(rec, r)
	var body map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	if data, ok := body["data"].(map[string]any); ok {
		data["backfill"] = backfill
	}
	writeStub(w, http.StatusOK, body)
}

func writeStub(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

// stubObjectives are three objectives whose every column orders them
// differently, so that a sort by any column shows.
func stubObjectives() []map[string]any {
	obj := func(name string, target, attainment, left, burn float64, state string) map[string]any {
		return map[string]any{
			"name": name, "target": target, "window": "30d",
			"subject": map[string]any{"kind": "app", "name": name}, "labels": map[string]string{"team": "web"},
			"attainment": attainment, "coverage": 1.0,
			"error_budget":         map[string]any{"total_seconds": (1 - target) * 30 * 86400, "remaining_seconds": left * (1 - target) * 30 * 86400, "remaining_ratio": left},
			"burn_rates":           map[string]any{"5m": burn, "30m": burn, "1h": burn, "2h": burn, "6h": burn, "1d": burn, "3d": burn},
			"projected_attainment": nil, "state": state,
		}
	}
	return []map[string]any{
		obj("checkout", 0.999, 0.9995, 0.5, 0.8, "ok"),
		obj("api-gateway", 0.99, 0.985, -0.5, 3.2, "breached"),
		obj("web-front", 0.9995, 0.99965, 0.2, 14.4, "at_risk"),
	}
}

// budgetSeries is a month of daily figures falling from a full budget.
func budgetSeries(left float64) []map[string]any {
	start := time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, -29)
	var out []map[string]any
	for i := range 30 {
		out = append(out, map[string]any{"time": start.AddDate(0, 0, i).Format(time.RFC3339),
			"remaining_ratio": 1 - float64(i)*(1-left)/29, "attainment": 0.999})
	}
	return out
}

func serveObjectives(w http.ResponseWriter, rest string, list bool) {
	objs := stubObjectives()
	if !list {
		objs = nil
	}
	meta := map[string]any{"count": len(objs), "timestamp": time.Now().UTC().Format(time.RFC3339)}
	if rest == "" {
		writeStub(w, http.StatusOK, map[string]any{"data": append([]map[string]any{}, objs...), "meta": meta})
		return
	}
	for _, o := range objs {
		if "/"+o["name"].(string) == rest {
			o["budget_series"] = budgetSeries(o["error_budget"].(map[string]any)["remaining_ratio"].(float64))
			writeStub(w, http.StatusOK, map[string]any{"data": o, "meta": meta})
			return
		}
	}
	writeStub(w, http.StatusNotFound, map[string]any{"data": nil, "meta": meta,
		"error": map[string]any{"code": "NOT_FOUND", "message": fmt.Sprintf("no objective %q", rest)}})
}

// control adds the stubs' switches to the control server:
// POST /backfill?state=running&progress=0.25 (state "" removes the member)
// and POST /objectives?mode=list|empty|"" ("": the monitor's 404).
func (s *apiStubs) control(mux *http.ServeMux) {
	mux.HandleFunc("POST /backfill", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		state := r.FormValue("state")
		if state == "" {
			s.backfill = nil
			return
		}
		var progress float64
		fmt.Sscan(r.FormValue("progress"), &progress)
		now := time.Now().UTC()
		s.backfill = map[string]any{"state": state, "progress": progress,
			"from": now.AddDate(0, 0, -90).Format(time.RFC3339), "to": now.Format(time.RFC3339),
			"apps_total": 10, "apps_done": int(progress * 10), "seconds_left": (1 - progress) * 10 * 90 * 86400}
	})
	mux.HandleFunc("POST /objectives", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.objectives = r.FormValue("mode")
	})
}
