package promexport

// WritesUpItself tells whether EncodeSnapshot writes availmon_up and
// availmon_unavailable of s itself rather than through a registry, so that
// tests comparing the two know they compare two ways.
func WritesUpItself(e *Exporter, s *Snapshot) bool {
	_, up := e.up.rows(s)
	_, unavailable := e.unavailable.rows(s)
	return up && unavailable
}
