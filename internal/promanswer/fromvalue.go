package promanswer

import (
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
)

// ErrNullSample is the error of a vector answer holding null for a
// sample: client_golang decodes it as a nil *model.Sample.
var ErrNullSample = &v1.Error{Type: v1.ErrBadResponse, Msg: "the answer holds a null sample"}

// FromValue routes the series of v, an answer decoded in full, as Decode
// routes them, appending to buf[:0]; it returns v's type. A matrix or a
// string has no series here: the caller tells from the type that it is no
// instant answer.
func FromValue(v model.Value, labels []string, route func(values [][]byte) int, buf []Series) ([]Series, model.ValueType, error) {
	out := buf[:0]
	values := make([][]byte, len(labels))
	switch v := v.(type) {
	case nil:
		return out, model.ValNone, nil
	case *model.Scalar:
		if r := route(values); r >= 0 {
			out = append(out, Series{Route: r, Value: float64(v.Value)})
		}
	case model.Vector:
		for _, s := range v {
			if s == nil {
				return out[:0], model.ValVector, ErrNullSample
			}
			for i, l := range labels {
				values[i] = []byte(s.Metric[model.LabelName(l)])
			}
			if r := route(values); r >= 0 {
				out = append(out, Series{Route: r, Value: float64(s.Value)})
			}
		}
	}
	return out, v.Type(), nil
}
