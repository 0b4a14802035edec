package web_test

// The part of the API that another branch builds, in the shape the shared
// contract gives it: the backfill member of /api/status. The page must
// show it when it is there and nothing when it is not; the test sets what
// it answers through the control server. Unset, every request goes to the
// monitor unchanged. (/api/objectives is the monitor's own.)

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

	mu       sync.Mutex
	backfill map[string]any // nil: /api/status as the monitor answers it
}

// apiPath is the API path of r, the /status prefix removed.
func apiPath(r *http.Request) string {
	return strings.TrimPrefix(r.URL.Path, "/status")
}

func (s *apiStubs) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	backfill := s.backfill
	s.mu.Unlock()
	switch {
	case apiPath(r) == "/api/status" && backfill != nil:
		s.statusWithBackfill(w, r, backfill)
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

// control adds the stub's switch to the control server:
// POST /backfill?state=running&progress=0.25 (state "" removes the member).
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
}
