package promql

// valueItems is a fused group's items by value of its label. A large
// fleet's group has a value an app, 100,000 of them: the map holds a
// value's only item itself, and only a value of several items refers to
// its list (in more), so that an entry takes 24 bytes, not 40 and an
// allocation of its own.
type valueItems struct {
	m    map[string]int // the value's item; -1-k for the items more[k]
	more [][]int
}

func newValueItems(n int) valueItems { return valueItems{m: make(map[string]int, n)} }

// add appends item to value's items; it reports whether value is new.
func (v *valueItems) add(value string, item int) bool {
	x, ok := v.m[value]
	switch {
	case !ok:
		v.m[value] = item
	case x >= 0:
		v.more = append(v.more, []int{x, item})
		v.m[value] = -len(v.more)
	default:
		v.more[-1-x] = append(v.more[-1-x], item)
	}
	return !ok
}

// firstOf returns the first item of a value whose entry in m is x. Route
// looks the value up in m itself: m[string(b)] does not copy b.
func (v *valueItems) firstOf(x int) int {
	if x >= 0 {
		return x
	}
	return v.more[-1-x][0]
}

// of returns value's items (nil for none), which the caller must not
// change.
func (v *valueItems) of(value string) []int {
	x, ok := v.m[value]
	switch {
	case !ok:
		return nil
	case x >= 0:
		return []int{x}
	}
	return v.more[-1-x]
}

// appendTo appends value's items to out.
func (v *valueItems) appendTo(out []int, value string) []int {
	x, ok := v.m[value]
	switch {
	case !ok:
		return out
	case x >= 0:
		return append(out, x)
	}
	return append(out, v.more[-1-x]...)
}

// each hands f every value's items, in no order. A value's only item is
// handed in a slice that f must not keep: the next value's reuses it.
func (v *valueItems) each(f func(items []int)) {
	var one [1]int
	for _, x := range v.m {
		if x >= 0 {
			one[0] = x
			f(one[:])
			continue
		}
		f(v.more[-1-x])
	}
}

// subset is v narrowed to values; the lists of several items are shared.
func (v *valueItems) subset(values []string) valueItems {
	out := newValueItems(len(values))
	for _, s := range values {
		x, ok := v.m[s]
		switch {
		case !ok:
		case x >= 0:
			out.m[s] = x
		default:
			out.more = append(out.more, v.more[-1-x])
			out.m[s] = -len(out.more)
		}
	}
	return out
}
