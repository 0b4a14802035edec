package promexport

// WritesUpItself tells whether EncodeSnapshot writes availmon_up of s
// itself rather than through a registry, so that tests comparing the two
// know they compare two ways.
func WritesUpItself(e *Exporter, s *Snapshot) bool {
	_, ok := e.up.rows(s)
	return ok
}
