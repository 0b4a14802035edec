package objective_test

import (
	"errors"
	"math"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/availmon/availmon/objective"
	"github.com/availmon/availmon/period"
)

func FuzzParseTarget(f *testing.F) {
	for _, s := range []string{"99.9%", "100%", "0%", "100.0000000001%", "99.9", "1e2%", "", "%", "0.0000000001%", "999.9%"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := objective.ParseTarget(s)
		if err != nil {
			if !errors.Is(err, objective.ErrTarget) || got != 0 {
				t.Fatalf("ParseTarget(%q) = %v, %v: an error must wrap ErrTarget and come with 0", s, got, err)
			}
			return
		}
		if !(got > 0 && got <= 1) {
			t.Fatalf("ParseTarget(%q) = %v, outside (0, 1]", s, got)
		}
		// An accepted target is the float64 nearest the decimal written.
		r, ok := new(big.Rat).SetString(strings.TrimSuffix(s, "%"))
		if !ok {
			t.Fatalf("ParseTarget accepted %q, which is not a decimal", s)
		}
		want, _ := r.Quo(r, big.NewRat(100, 1)).Float64()
		if got != want {
			t.Fatalf("ParseTarget(%q) = %v, want %v", s, got, want)
		}
		o := objective.Objective{Name: "f", Target: got, Window: objective.Window{Calendar: period.Month}}
		if err := o.Validate(); err != nil {
			t.Fatalf("a parsed target does not validate: %v", err)
		}
	})
}

func FuzzParseWindow(f *testing.F) {
	for _, s := range []string{"30d", "month", "quarter", "1d", "23h59m59s", "400d", "4w", "1y", "", "24h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		w, err := objective.ParseWindow(s)
		if err != nil {
			if !errors.Is(err, objective.ErrWindow) {
				t.Fatalf("ParseWindow(%q): %v does not wrap ErrWindow", s, err)
			}
			return
		}
		if w.String() != s {
			t.Fatalf("ParseWindow(%q).String() = %q", s, w.String())
		}
		o := objective.Objective{Name: "f", Target: 0.99, Window: w}
		if err := o.Validate(); err != nil {
			t.Fatalf("a parsed window does not validate: %v", err)
		}
		if d := w.Rolling.Duration(); w.Calendar == 0 && (d < 24*time.Hour || d > 400*24*time.Hour) {
			t.Fatalf("ParseWindow(%q) = %v", s, d)
		}
	})
}

// A definition that validates can be evaluated, whatever it holds.
func FuzzValidate(f *testing.F) {
	f.Add("checkout", 0.999, "30d", "team", "pay", int64(0))
	f.Add("", 1.0, "month", "__x", "\xff", int64(1<<40))
	f.Add("a.b-c_d", 1e-300, "quarter", "objective", "", int64(-1))
	f.Fuzz(func(t *testing.T, name string, target float64, window, label, value string, at int64) {
		w, _ := objective.ParseWindow(window)
		o := objective.Objective{Name: name, Target: target, Window: w, Labels: map[string]string{label: value}}
		err := o.Validate()
		if err != nil {
			for _, sentinel := range []error{objective.ErrName, objective.ErrTarget, objective.ErrWindow, objective.ErrLabel} {
				if errors.Is(err, sentinel) {
					return
				}
			}
			t.Fatalf("Validate() = %v, wraps no sentinel", err)
		}
		if math.IsNaN(target) || target <= 0 || target > 1 {
			t.Fatalf("Validate accepted the target %v", target)
		}
		// A second in the years the record keeps.
		now := time.Unix(86400+(at&(1<<37-1))%(250000*86400), 0)
		st := o.Evaluate(now, from(now.Add(-100*time.Hour)).up(time.Hour).down(time.Minute).view())
		if st.Budget < 0 || st.State > objective.Breached {
			t.Fatalf("Evaluate = %+v", st)
		}
	})
}
