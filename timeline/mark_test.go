package timeline

import (
	"bytes"
	"testing"
)

// MarkMaintenance over many spans, overlapping, past and future, leaves
// the record as SetMaintenance over each of them does.
func TestMarkMaintenanceIsSetMaintenanceOverEach(t *testing.T) {
	build := func() *Record {
		var r Record
		r.Check(at(0), Up, 2*m)
		r.Check(at(90*s), Down, 2*m)
		r.Fill(Span{From: at(-2 * h), To: at(0), State: Up})
		r.Check(at(3*m), Up, 2*m)
		return &r
	}
	spans := []Span{{From: at(-90 * m), To: at(-80 * m)}, {From: at(-85 * m), To: at(-70 * m)},
		{From: at(60 * s), To: at(2 * m)}, {From: at(4 * m), To: at(h)}, {From: at(-30 * m), To: at(-30 * m)}}
	one, each := build(), build()
	one.MarkMaintenance(spans...)
	for _, sp := range spans {
		each.SetMaintenance(sp.From, sp.To, true)
	}
	b1, _ := one.View().AppendBinary(nil)
	b2, _ := each.View().AppendBinary(nil)
	if !bytes.Equal(b1, b2) {
		t.Errorf("MarkMaintenance differs from SetMaintenance over each span:\n%+v\n%+v",
			one.View().Totals(at(-3*h), at(2*h)), each.View().Totals(at(-3*h), at(2*h)))
	}
	if got := one.View().Totals(at(-3*h), at(2*h)).Maintenance; got != 20*m+m+56*m {
		t.Errorf("maintenance %s, want 77m", got)
	}
}
