package availmon

import (
	"net/http"

	"github.com/go-chi/chi/v5"
)

// controlRoutes adds the endpoints of the operators' controls: reads on
// reads (guarded when ProtectReads is set), writes on r with requireAuth.
func (m *Monitor) controlRoutes(r, reads chi.Router) {
	reads.With(m.noParams).Get("/api/services", m.listServices)
	reads.With(m.noParams).Get("/api/services/{name}", m.getService)
	reads.Get("/api/badges/apps/{name}", m.badgeHandler(badgeApp))
	reads.Get("/api/badges/locations/{name}", m.badgeHandler(badgeLocation))
	reads.Get("/api/badges/services/{name}", m.badgeHandler(badgeService))
	reads.With(m.noParams).Get("/api/maintenance", m.listMaintenance)
	reads.With(m.noParams).Get("/api/maintenance/{name}", m.getMaintenance)
	r.With(m.requireAuth).Post("/api/maintenance", m.postMaintenance)
	r.With(m.requireAuth).Delete("/api/maintenance/{name}", m.deleteMaintenance)
}

// noParams refuses a query string on endpoints that take no parameters,
// as the rulings ask of every read endpoint.
func (m *Monitor) noParams(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.RawQuery != "" {
			m.writeError(w, r, validationError("unknown query parameters", "accepted query parameters: none"))
			return
		}
		next.ServeHTTP(w, r)
	})
}
