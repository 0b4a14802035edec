package availmon

import (
	"github.com/go-chi/chi/v5"
)

// controlRoutes adds the endpoints of the operators' controls: reads on
// reads (guarded when ProtectReads is set), writes on r with requireAuth.
func (m *Monitor) controlRoutes(r, reads chi.Router) {
	reads.With(m.onlyParams(nil)).Get("/api/services", m.listServices)
	reads.With(m.onlyParams(nil)).Get("/api/services/{name}", m.getService)
	// Badges check their own query (?value=...).
	reads.Get("/api/badges/apps/{name}", m.badgeHandler(badgeApp))
	reads.Get("/api/badges/locations/{name}", m.badgeHandler(badgeLocation))
	reads.Get("/api/badges/services/{name}", m.badgeHandler(badgeService))
	reads.With(m.onlyParams(nil)).Get("/api/maintenance", m.listMaintenance)
	reads.With(m.onlyParams(nil)).Get("/api/maintenance/{name}", m.getMaintenance)
	r.With(m.requireAuth).Post("/api/maintenance", m.postMaintenance)
	r.With(m.requireAuth).Delete("/api/maintenance/{name}", m.deleteMaintenance)
}
