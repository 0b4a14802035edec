package history

// AppDays holds the 24-hour windows of many apps, their pointer-free parts
// in one slice and their odd parts in another. A slice of AppDay holds a
// pointer in each window, and the collector scans the whole of it: at
// 100,000 apps 23 MB, which the collector's pacer makes the heap grow by
// again (internal/gcpace). Kept apart, the collector scans 8 bytes an app.
// The zero value holds no windows.
type AppDays struct {
	core []dayCore
	odd  []*oddHours
}

// MakeAppDays returns n empty windows.
func MakeAppDays(n int) AppDays {
	return AppDays{core: make([]dayCore, n), odd: make([]*oddHours, n)}
}

// Len is the number of windows.
func (d AppDays) Len() int { return len(d.core) }

// At is a copy of window i: it shares the odd part, which is never
// changed in place, so changing the copy leaves d as it is.
func (d AppDays) At(i int) AppDay { return AppDay{dayCore: d.core[i], odd: d.odd[i]} }

// Put makes window i a copy of w.
func (d AppDays) Put(i int, w *AppDay) { d.core[i], d.odd[i] = w.dayCore, w.odd }

// Slice is the windows [lo, hi) of d, sharing d's storage.
func (d AppDays) Slice(lo, hi int) AppDays {
	return AppDays{core: d.core[lo:hi], odd: d.odd[lo:hi]}
}

// AppendAppDays appends copies of src's windows to dst, as append does.
func AppendAppDays(dst, src AppDays) AppDays {
	return AppDays{core: append(dst.core, src.core...), odd: append(dst.odd, src.odd...)}
}

// Truncate is d with no windows, keeping its storage for AppendAppDays.
func (d AppDays) Truncate() AppDays { return AppDays{core: d.core[:0], odd: d.odd[:0]} }
