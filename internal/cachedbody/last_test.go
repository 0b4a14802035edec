package cachedbody

import (
	"strconv"
	"testing"
)

// An answer is encoded once per key in a row: an equal key gets the kept
// one, a different key a new one, and a failed encoding keeps nothing.
func TestLast(t *testing.T) {
	var l Last[[2]int]
	if l.Load() != nil {
		t.Fatal("an empty Last holds an answer")
	}
	encodes := 0
	encode := func(s string) func() ([]byte, bool) {
		return func() ([]byte, bool) { encodes++; return []byte(s), s != "" }
	}
	for i, tt := range []struct {
		key     [2]int
		body    string // what an encoding would make; "" fails
		want    string
		encoded bool
	}{
		{[2]int{1, 1}, "a", "a", true},
		{[2]int{1, 1}, "b", "a", false},
		{[2]int{1, 2}, "cc", "cc", true},
		{[2]int{1, 1}, "d", "d", true},
		{[2]int{2, 2}, "", "", true},
		{[2]int{1, 1}, "e", "d", false},
	} {
		before, last := encodes, l.Load()
		a, ok := l.Get(tt.key, encode(tt.body))
		if encoded := encodes > before; encoded != tt.encoded {
			t.Errorf("%d: encoded %v, want %v", i, encoded, tt.encoded)
		}
		if tt.want == "" {
			if ok || a != nil || l.Load() != last {
				t.Errorf("%d: a failed encoding gave %v, %v and changed the kept answer", i, a, ok)
			}
			continue
		}
		if !ok || string(a.Body()) != tt.want || a.Length()[0] != strconv.Itoa(len(tt.want)) || l.Load() != a {
			t.Errorf("%d: answer %q (length %v, ok %v, kept %v), want %q", i, a.Body(), a.Length(), ok, l.Load() == a, tt.want)
		}
	}
}
