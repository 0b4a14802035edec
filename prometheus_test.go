package availmon

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
)

func vec(values ...float64) model.Vector {
	out := make(model.Vector, len(values))
	for i, v := range values {
		out[i] = &model.Sample{Value: model.SampleValue(v)}
	}
	return out
}

// The value rulings, without a server: what a set of samples means.
func TestPrometheusResult(t *testing.T) {
	rt := 12 * time.Millisecond
	tests := []struct {
		name       string
		samples    model.Vector
		rtSamples  model.Vector
		wantStatus Status
		wantRT     time.Duration
		wantErr    string
	}{
		{name: "no sample", wantStatus: StatusUnavailable, wantRT: rt, wantErr: "no sample"},
		{name: "one up", samples: vec(1), wantStatus: StatusUp, wantRT: rt},
		{name: "non-zero is up", samples: vec(0.25), wantStatus: StatusUp, wantRT: rt},
		{name: "negative non-zero is up", samples: vec(-1), wantStatus: StatusUp, wantRT: rt},
		{name: "zero is down", samples: vec(0), wantStatus: StatusDown, wantRT: rt},
		{name: "all up", samples: vec(1, 1, 2), wantStatus: StatusUp, wantRT: rt},
		{name: "one down of several", samples: vec(1, 0, 1), wantStatus: StatusDown, wantRT: rt},
		{name: "NaN", samples: vec(math.NaN()), wantStatus: StatusUnavailable, wantRT: rt, wantErr: "sample is NaN"},
		{name: "NaN and up", samples: vec(1, math.NaN()), wantStatus: StatusUnavailable, wantRT: rt, wantErr: "sample is NaN"},
		{name: "NaN and down", samples: vec(math.NaN(), 0), wantStatus: StatusDown, wantRT: rt},
		{name: "response time metric", samples: vec(1), rtSamples: vec(0.5), wantStatus: StatusUp, wantRT: 500 * time.Millisecond},
		{name: "slowest series wins", samples: vec(1), rtSamples: vec(0.1, 2, math.NaN()), wantStatus: StatusUp, wantRT: 2 * time.Second},
		{name: "NaN response time falls back", samples: vec(1), rtSamples: vec(math.NaN()), wantStatus: StatusUp, wantRT: rt},
		{name: "negative response time falls back", samples: vec(1), rtSamples: vec(-3), wantStatus: StatusUp, wantRT: rt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := result(tt.samples, tt.rtSamples, rt)
			gotErr := ""
			if got.Err != nil {
				gotErr = got.Err.Error()
			}
			if diff := cmp.Diff([]any{tt.wantStatus, tt.wantRT, tt.wantErr}, []any{got.Status, got.ResponseTime, gotErr}); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSamplesOf(t *testing.T) {
	got, err := samplesOf(&model.Scalar{Value: 3})
	if err != nil || len(got) != 1 || got[0].Value != 3 {
		t.Errorf("scalar: got %v, %v; want one sample of 3", got, err)
	}
	if _, err := samplesOf(model.Matrix{}); err == nil {
		t.Error("matrix: want an error")
	}
	if _, err := samplesOf(&model.String{Value: "x"}); err == nil {
		t.Error("string: want an error")
	}
}

func TestIsExpressionError(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want bool
	}{
		{&v1.Error{Type: v1.ErrBadData}, true},
		// Prometheus 2.42's messages for a bad query and a bad timeout.
		{&v1.Error{Type: v1.ErrBadData, Msg: `invalid parameter "query": 1:16: parse error: unexpected end of input inside braces`}, true},
		{&v1.Error{Type: v1.ErrBadData, Msg: `invalid parameter "timeout": cannot parse "9.984872146s" to a valid duration`}, false},
		{&v1.Error{Type: v1.ErrExec}, true},
		{&v1.Error{Type: v1.ErrServer}, false},
		{&v1.Error{Type: v1.ErrTimeout}, false},
		{errors.New("connection refused"), false},
	} {
		if got := isExpressionError(tt.err); got != tt.want {
			t.Errorf("isExpressionError(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

// The timeout parameter must be in a form Prometheus parses: no fractions.
func TestServerTimeout(t *testing.T) {
	for _, tt := range []struct {
		in   time.Duration
		want string
	}{
		{9984872146 * time.Nanosecond, "9s"},
		{10 * time.Second, "10s"},
		{90*time.Second + 500*time.Millisecond, "1m30s"},
		{999999 * time.Microsecond, "999ms"},
		{1500 * time.Microsecond, "1ms"},
		{10 * time.Microsecond, "1ms"},
		{-time.Second, "1ms"},
	} {
		if got := serverTimeout(tt.in).String(); got != tt.want {
			t.Errorf("serverTimeout(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}
