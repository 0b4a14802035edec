package availmon

import "unsafe"

// ringSlab cuts the rings of apps' histories from shared allocations. A ring
// of the default 100 entries is 1,200 bytes, which the allocator would round
// up to its 1,280-byte size class (with 16-byte entries it was 1,600 in
// 1,792: 12% more). Slabs of about slabBytes lose under 1% to rounding. A ring outlives its
// app only as long as another ring of the same slab is in use, so what a
// removed app leaves behind is bounded by one slab.
type ringSlab struct {
	size int // entries per ring: the monitor's history size
	free []packedEntry
}

// slabBytes is the size of one slab: large enough to be a whole number of
// pages with little left over, small enough that a slab kept alive by one
// ring wastes little.
const slabBytes = 128 << 10

func newRingSlab(size int) *ringSlab { return &ringSlab{size: max(size, 1)} }

// history returns an empty history whose ring holds size entries exactly
// (so that filling it never reallocates, nor writes past it into the next
// app's ring).
func (s *ringSlab) history() *appHistory {
	if len(s.free) < s.size {
		const entry = int(unsafe.Sizeof(packedEntry{}))
		s.free = make([]packedEntry, s.size*max(1, slabBytes/(entry*s.size)))
	}
	r := s.free[:0:s.size]
	s.free = s.free[s.size:]
	return &appHistory{entries: r}
}
