package answercache

import "testing"

// An older generation than the kept answers' does not replace them.
func TestReportCacheGenerations(t *testing.T) {
	var rc Gen[answer]
	c1 := rc.Of(1, 4, 100)
	if rc.Of(1, 4, 100) != c1 {
		t.Error("the same generation got another cache")
	}
	c2 := rc.Of(2, 4, 100)
	if c2 == c1 || rc.Of(1, 4, 100) != nil || rc.Of(2, 4, 100) != c2 {
		t.Error("a newer generation did not replace the cache, or an older one did")
	}
	if c2.Max != 4 || c2.MaxBytes != 100 {
		t.Errorf("kept reports bounded at %d and %d bytes, want 4 and 100", c2.Max, c2.MaxBytes)
	}
}
