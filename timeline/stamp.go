package timeline

import "unsafe"

// Stamp is the part of a View that a check finding the state the last one
// found changes, when nothing else is written: the check's time and how
// far the record's time and the check's state reach. Most records change
// only so, cycle after cycle, so a reader that keeps views of many records
// (a ledger's Book, made every cycle) keeps each such view once and the
// stamp they share.
type Stamp struct{ end, last, projFrom, projTo int64 }

// Stamp returns v's stamp. Unknown time is not written, so the end of a
// record whose state is unknown is no part of its stamp: records checked
// at one time have one stamp, whatever their states.
func (v View) Stamp() Stamp {
	end := v.end
	if v.projState == Unknown {
		end = v.last
	}
	return Stamp{end, v.last, v.projFrom, v.projTo}
}

// WithStamp returns v with the stamp s: v's record as a check that found
// its state again, and wrote nothing else, leaves it. A record whose state
// is unknown keeps its end: unknown time is not written.
func (v View) WithStamp(s Stamp) View {
	v.last, v.projFrom, v.projTo = s.last, s.projFrom, s.projTo
	if v.projState != Unknown {
		v.end = s.end
	}
	return v
}

// Same reports whether v and w are the same view of a record: they share
// their bytes and hold the same times, so either reads as the other.
func (v View) Same(w View) bool {
	if v.Stamp() != w.Stamp() || v.projState != w.projState || !sameSlice(v.data, w.data) {
		return false
	}
	if v.x == w.x {
		return true
	}
	if v.x == nil || w.x == nil {
		return false
	}
	a, b := v.x, w.x
	return a.tail == b.tail && a.live == b.live && a.removed == b.removed &&
		sameSlice(a.idx, b.idx) && sameSlice(a.maint, b.maint)
}

// sameSlice reports whether a and b are the same elements of one array.
func sameSlice[T any](a, b []T) bool {
	return len(a) == len(b) && (len(a) == 0 || unsafe.SliceData(a) == unsafe.SliceData(b))
}
