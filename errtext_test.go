package availmon

import (
	"errors"
	"strings"
	"testing"
	"unsafe"
)

// TestTextInterner: equal texts of a cycle share one copy, and an app's
// unchanged text stays the one it had.
func TestTextInterner(t *testing.T) {
	var texts textInterner
	prev := strings.Clone("backend down")
	if got := texts.intern(strings.Clone("backend down"), prev); unsafe.StringData(got) != unsafe.StringData(prev) {
		t.Errorf("an unchanged text was not kept as it was")
	}
	first := texts.intern(strings.Clone("timeout"), "")
	second := texts.intern(strings.Clone("timeout"), "other")
	if first != "timeout" || unsafe.StringData(first) != unsafe.StringData(second) {
		t.Errorf("two equal texts of a cycle are two copies")
	}
	if got := texts.intern("", "x"); got != "" {
		t.Errorf("intern of the empty text = %q", got)
	}
}

// boundError cuts an error's text to maxErrorText bytes.
func TestBoundError(t *testing.T) {
	if err := boundError(errors.New(strings.Repeat("x", 5000))); len(err.Error()) > maxErrorText {
		t.Errorf("boundError kept %d bytes", len(err.Error()))
	}
	if err := boundError(nil); err != nil {
		t.Errorf("boundError(nil) = %v", err)
	}
}
