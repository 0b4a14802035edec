package objective_test

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/availmon/availmon/objective"
	"github.com/availmon/availmon/period"
	"github.com/google/go-cmp/cmp"
)

func TestParseTarget(t *testing.T) {
	tests := []struct {
		in      string
		want    float64
		wantErr string
	}{
		{in: "99.9%", want: 0.999},
		{in: "99.95%", want: 0.9995},
		{in: "100%", want: 1},
		{in: "100.0%", want: 1},
		{in: "0.001%", want: 0.00001},
		{in: "99.9999999999%", want: 0.999999999999},
		{in: "099.9%", want: 0.999},
		{in: "100.1%", wantErr: `target "100.1%": must be at most 100%; write a percentage above 0% and at most 100%, such as 99.9% or 99.95%`},
		{in: "0%", wantErr: `target "0%": must be above 0%; write a percentage above 0% and at most 100%, such as 99.9% or 99.95%`},
		{in: "0.0%", wantErr: `target "0.0%": must be above 0%`},
		{in: "99.9", wantErr: `target "99.9": not a percentage`},
		{in: "0.999", wantErr: `target "0.999": not a percentage`},
		{in: "", wantErr: `target "": not a percentage`},
		{in: "%", wantErr: `target "%": not a number of the form 99.9%`},
		{in: "-1%", wantErr: `not a number of the form 99.9%`},
		{in: "+99%", wantErr: `not a number of the form 99.9%`},
		{in: " 99.9%", wantErr: `not a number of the form 99.9%`},
		{in: "99.9 %", wantErr: `not a number of the form 99.9%`},
		{in: "99.%", wantErr: `not a number of the form 99.9%`},
		{in: ".9%", wantErr: `not a number of the form 99.9%`},
		{in: "1e2%", wantErr: `not a number of the form 99.9%`},
		{in: "NaN%", wantErr: `not a number of the form 99.9%`},
		{in: "1000%", wantErr: `not a number of the form 99.9%`},
		{in: "99.99999999999%", wantErr: `not a number of the form 99.9%`},
		{in: "99,9%", wantErr: `not a number of the form 99.9%`},
		{in: "99.9%%", wantErr: `not a number of the form 99.9%`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := objective.ParseTarget(tt.in)
			if tt.wantErr != "" {
				if err == nil || !errors.Is(err, objective.ErrTarget) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseTarget(%q) = %v, %v; want an ErrTarget containing %q", tt.in, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseTarget(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestParseWindow(t *testing.T) {
	tests := []struct {
		in      string
		rolling time.Duration
		unit    period.Unit
		wantErr string
	}{
		{in: "28d", rolling: 28 * day},
		{in: "30d", rolling: 30 * day},
		{in: "90d", rolling: 90 * day},
		{in: "4w", rolling: 28 * day},
		{in: "1d", rolling: day},
		{in: "400d", rolling: 400 * day},
		{in: "month", unit: period.Month},
		{in: "quarter", unit: period.Quarter},
		{in: "23h", wantErr: `window "23h": shorter than 1d; allowed: a rolling window from 1d to 400d such as 28d, 30d or 90d, or a calendar month or quarter`},
		{in: "401d", wantErr: `window "401d": not a duration, month or quarter`},
		{in: "1y", wantErr: `not a duration, month or quarter`},
		{in: "week", wantErr: `not a duration, month or quarter`},
		{in: "Month", wantErr: `not a duration, month or quarter`},
		{in: "year", wantErr: `not a duration, month or quarter`},
		{in: "", wantErr: `not a duration, month or quarter`},
		{in: "-30d", wantErr: `not a duration, month or quarter`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := objective.ParseWindow(tt.in)
			if tt.wantErr != "" {
				if err == nil || !errors.Is(err, objective.ErrWindow) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseWindow(%q) = %v, %v; want an ErrWindow containing %q", tt.in, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got.Rolling.Duration() != tt.rolling || got.Calendar != tt.unit || got.String() != tt.in {
				t.Fatalf("ParseWindow(%q) = %+v (%v), %v", tt.in, got, got, err)
			}
		})
	}
}

func TestParseKind(t *testing.T) {
	if k, err := objective.ParseKind("availability"); err != nil || k != objective.Availability || k.String() != "availability" {
		t.Fatalf("ParseKind(availability) = %v, %v", k, err)
	}
	if k, err := objective.ParseKind("latency"); err != nil || k != objective.Latency || k.String() != "latency" {
		t.Fatalf("ParseKind(latency) = %v, %v", k, err)
	}
	for _, s := range []string{"", "Availability", "uptime", "Latency"} {
		if _, err := objective.ParseKind(s); !errors.Is(err, objective.ErrKind) {
			t.Errorf("ParseKind(%q) = %v, want ErrKind", s, err)
		}
	}
	_, err := objective.ParseKind("uptime")
	if want := `kind "uptime": unknown kind; allowed: availability, or latency with a threshold above 0 and at most 1m`; err.Error() != want {
		t.Errorf("ParseKind(uptime) = %q, want %q", err, want)
	}
}

func TestValidate(t *testing.T) {
	month := mustWindow(t, "month", nil)
	valid := objective.Objective{Name: "checkout.eu-1_b", Target: 0.999, Window: month, Labels: map[string]string{"team": "pay", "runbook_url": "https://x/y"}}
	with := func(f func(o *objective.Objective)) objective.Objective {
		o := valid
		o.Labels = map[string]string{"team": "pay"}
		f(&o)
		return o
	}
	tests := []struct {
		name string
		o    objective.Objective
		want error
	}{
		{name: "valid", o: valid},
		{name: "rolling", o: with(func(o *objective.Objective) { o.Window = mustWindow(t, "28d", nil) })},
		{name: "100%", o: with(func(o *objective.Objective) { o.Target = 1 })},
		{name: "no labels", o: with(func(o *objective.Objective) { o.Labels = nil })},
		{name: "no name", o: with(func(o *objective.Objective) { o.Name = "" }), want: objective.ErrName},
		{name: "a slash in the name", o: with(func(o *objective.Objective) { o.Name = "a/b" }), want: objective.ErrName},
		{name: "a name starting with a dot", o: with(func(o *objective.Objective) { o.Name = ".a" }), want: objective.ErrName},
		{name: "a name too long", o: with(func(o *objective.Objective) { o.Name = string(make([]byte, 129)) }), want: objective.ErrName},
		{name: "latency", o: with(func(o *objective.Objective) { o.Kind, o.Threshold = objective.Latency, 300*time.Millisecond })},
		{name: "latency of a minute", o: with(func(o *objective.Objective) { o.Kind, o.Threshold = objective.Latency, time.Minute })},
		{name: "latency without a threshold", o: with(func(o *objective.Objective) { o.Kind = objective.Latency }), want: objective.ErrKind},
		{name: "latency over a minute", o: with(func(o *objective.Objective) { o.Kind, o.Threshold = objective.Latency, time.Minute+1 }), want: objective.ErrKind},
		{name: "a threshold on availability", o: with(func(o *objective.Objective) { o.Threshold = time.Second }), want: objective.ErrKind},
		{name: "an unknown kind", o: with(func(o *objective.Objective) { o.Kind = 2 }), want: objective.ErrKind},
		{name: "latency of a service", o: with(func(o *objective.Objective) {
			o.Kind, o.Threshold, o.Subject = objective.Latency, time.Second, objective.Subject{Service: "shop"}
		}), want: objective.ErrSubject},
		{name: "no target", o: with(func(o *objective.Objective) { o.Target = 0 }), want: objective.ErrTarget},
		{name: "target over 1", o: with(func(o *objective.Objective) { o.Target = 1.001 }), want: objective.ErrTarget},
		{name: "target NaN", o: with(func(o *objective.Objective) { o.Target = math.NaN() }), want: objective.ErrTarget},
		{name: "target negative", o: with(func(o *objective.Objective) { o.Target = -0.5 }), want: objective.ErrTarget},
		{name: "no window", o: with(func(o *objective.Objective) { o.Window = objective.Window{} }), want: objective.ErrWindow},
		{name: "a week", o: with(func(o *objective.Objective) { o.Window.Calendar = period.Week }), want: objective.ErrWindow},
		{name: "both kinds of window", o: with(func(o *objective.Objective) { o.Window.Rolling = mustWindow(t, "30d", nil).Rolling }), want: objective.ErrWindow},
		{name: "a rolling window under a day", o: with(func(o *objective.Objective) {
			w, _ := period.ParseWindow("12h")
			o.Window = objective.Window{Rolling: w}
		}), want: objective.ErrWindow},
		{name: "a label name with a dash", o: with(func(o *objective.Objective) { o.Labels["a-b"] = "x" }), want: objective.ErrLabel},
		{name: "a label name starting with a digit", o: with(func(o *objective.Objective) { o.Labels["1a"] = "x" }), want: objective.ErrLabel},
		{name: "a label name starting with __", o: with(func(o *objective.Objective) { o.Labels["__name__"] = "x" }), want: objective.ErrLabel},
		{name: "an empty label name", o: with(func(o *objective.Objective) { o.Labels[""] = "x" }), want: objective.ErrLabel},
		{name: "a reserved label", o: with(func(o *objective.Objective) { o.Labels["objective"] = "x" }), want: objective.ErrLabel},
		{name: "a label value not UTF-8", o: with(func(o *objective.Objective) { o.Labels["team"] = "\xff" }), want: objective.ErrLabel},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.o.Validate()
			if tt.want == nil && err != nil || tt.want != nil && !errors.Is(err, tt.want) {
				t.Fatalf("Validate() = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestValidateMessages(t *testing.T) {
	o := objective.Objective{Name: "x", Target: 1.5, Window: mustWindow(t, "30d", nil)}
	want := `target "150%": must be above 0% and at most 100%; write a percentage above 0% and at most 100%, such as 99.9% or 99.95%`
	if diff := cmp.Diff(want, o.Validate().Error()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	o = objective.Objective{Name: "x", Target: 0.9, Window: mustWindow(t, "30d", nil), Labels: map[string]string{"zz": "\xff", "b-c": "x"}}
	want = `label "b-c": not a label name; label names are letters, digits and '_', not starting with a digit or "__", and not one of objective, app, location, service, window, kind, state`
	if diff := cmp.Diff(want, o.Validate().Error()); diff != "" {
		t.Errorf("the first label in order (-want +got):\n%s", diff)
	}
}

func TestEvaluateInvalidPanics(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "objective: Evaluate of an invalid objective") {
			t.Fatalf("recover() = %v", r)
		}
	}()
	objective.Objective{Name: "x", Target: 0.9}.Evaluate(now, objective.Views{})
}

func TestStateString(t *testing.T) {
	got := []string{objective.OK.String(), objective.AtRisk.String(), objective.Breached.String(), objective.State(7).String()}
	if d := cmp.Diff([]string{"ok", "at_risk", "breached", "State(7)"}, got); d != "" {
		t.Error(d)
	}
}
