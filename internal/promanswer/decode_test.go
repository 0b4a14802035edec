package promanswer

import (
	"context"
	"errors"
	"math"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
)

// The labels the tests route by: a fused label and a combined query's tag.
var testLabels = []string{"app", "availmon_term"}

// got is a decoded series as the tests compare it: its routed label values
// and its value.
type got struct {
	Labels string
	Value  float64
}

// router numbers the label values it is shown, and drops series of app
// "drop", so that tests see both what a route function gets and dropping.
type router struct{ seen []string }

func (r *router) route(values [][]byte) int {
	if string(values[0]) == "drop" {
		return -1
	}
	key := string(values[0]) + "|" + string(values[1])
	for i, s := range r.seen {
		if s == key {
			return i
		}
	}
	r.seen = append(r.seen, key)
	return len(r.seen) - 1
}

// lean decodes body with Decode.
func lean(body []byte) (Answer, []got, error) {
	var r router
	ans, err := Decode(body, testLabels, r.route, nil)
	if err != nil {
		return ans, nil, err
	}
	out := make([]got, len(ans.Series))
	for i, s := range ans.Series {
		out[i] = got{Labels: r.seen[s.Route], Value: s.Value}
	}
	return ans, out, nil
}

// reference decodes body with client_golang and routes its series as
// Decode's caller would.
func reference(body []byte) (model.ValueType, v1.Warnings, []got, error) {
	v, warnings, err := Full(context.Background(), http.StatusOK, body)
	if err != nil {
		return model.ValNone, warnings, nil, err
	}
	var out []got
	switch v := v.(type) {
	case nil:
		return model.ValNone, warnings, nil, nil
	case *model.Scalar:
		out = append(out, got{Labels: "|", Value: float64(v.Value)})
	case model.Vector:
		for _, s := range v {
			if s == nil {
				return model.ValVector, warnings, nil, ErrNullSample
			}
			if s.Metric["app"] == "drop" {
				continue
			}
			out = append(out, got{Labels: string(s.Metric["app"]) + "|" + string(s.Metric["availmon_term"]), Value: float64(s.Value)})
		}
	}
	return v.Type(), warnings, out, nil
}

var equateNaN = cmpopts.EquateNaNs()

// agree checks that what Decode accepts, client_golang decodes to the same.
func agree(t *testing.T, body []byte) (accepted bool) {
	t.Helper()
	ans, series, err := lean(body)
	if err != nil {
		if !errors.Is(err, ErrUnsupported) {
			t.Fatalf("Decode error %v does not wrap ErrUnsupported", err)
		}
		return false
	}
	typ, warnings, want, rerr := reference(body)
	if ans.Status == "error" {
		// The caller makes the error client_golang makes of it.
		var e *v1.Error
		if !errors.As(rerr, &e) || string(e.Type) != ans.ErrorType || e.Msg != ans.Error {
			t.Fatalf("Decode read the error %q: %q, client_golang: %v", ans.ErrorType, ans.Error, rerr)
		}
		return true
	}
	if rerr != nil {
		t.Fatalf("Decode accepted %q, client_golang refused it: %v", body, rerr)
	}
	if ans.Type != typ {
		t.Errorf("type %v, client_golang %v", ans.Type, typ)
	}
	if diff := cmp.Diff(want, series, equateNaN, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("series of %q (-client_golang +Decode):\n%s", body, diff)
	}
	if diff := cmp.Diff([]string(warnings), ans.Warnings, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("warnings (-client_golang +Decode):\n%s", diff)
	}
	return true
}

const promAnswer = `{"status":"success","data":{"resultType":"vector","result":[` +
	`{"metric":{"__name__":"demo_up","app":"a","instance":"127.0.0.1:1","job":"demo"},"value":[1700000000.123,"1"]},` +
	`{"metric":{"__name__":"demo_up","app":"b","instance":"127.0.0.1:1","job":"demo"},"value":[1700000000.123,"0"]}]}}`

func TestDecode(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	for _, tt := range []struct {
		name     string
		body     string
		want     []got
		typ      model.ValueType
		warnings []string
	}{
		{name: "prometheus", body: promAnswer, typ: model.ValVector,
			want: []got{{"a|", 1}, {"b|", 0}}},
		{name: "victoriametrics", typ: model.ValVector,
			body: `{"status":"success","isPartial":false,"data":{"resultType":"vector","result":[{"metric":{"app":"a"},"value":[1700000000,"2.5"]}]},"stats":{"seriesFetched": "1","executionTimeMsec":0}}`,
			want: []got{{"a|", 2.5}}},
		{name: "combined query tag", typ: model.ValVector,
			body: `{"status":"success","data":{"resultType":"vector","result":[{"metric":{"app":"x","availmon_term":"3"},"value":[1,"7"]}]}}`,
			want: []got{{"x|3", 7}}},
		{name: "special values", typ: model.ValVector,
			body: `{"status":"success","data":{"resultType":"vector","result":[` +
				`{"metric":{"app":"n"},"value":[1,"NaN"]},{"metric":{"app":"i"},"value":[1,"+Inf"]},{"metric":{"app":"m"},"value":[1,"-Inf"]},{"metric":{"app":"e"},"value":[1,"1e-300"]}]}}`,
			want: []got{{"n|", nan}, {"i|", inf}, {"m|", -inf}, {"e|", 1e-300}}},
		{name: "missing label", typ: model.ValVector,
			body: `{"status":"success","data":{"resultType":"vector","result":[{"metric":{"job":"x"},"value":[1,"1"]},{"metric":{},"value":[1,"1"]},{"metric":null,"value":[1,"1"]},{"value":[1,"1"]}]}}`,
			want: []got{{"|", 1}, {"|", 1}, {"|", 1}, {"|", 1}}},
		{name: "duplicated series", typ: model.ValVector,
			body: `{"status":"success","data":{"resultType":"vector","result":[{"metric":{"app":"a"},"value":[1,"1"]},{"metric":{"app":"a"},"value":[1,"0"]}]}}`,
			want: []got{{"a|", 1}, {"a|", 0}}},
		{name: "label given twice: the last counts", typ: model.ValVector,
			body: `{"status":"success","data":{"resultType":"vector","result":[{"metric":{"app":"a","app":"b"},"value":[1,"1"]}]}}`,
			want: []got{{"b|", 1}}},
		{name: "escaped and unicode values", typ: model.ValVector,
			body: `{"status":"success","data":{"resultType":"vector","result":[{"metric":{"app":"a\"b\\c\u00e9\ud83d\ude00","\u0061vailmon_term":"1"},"value":[1,"1"]},{"metric":{"app":"été"},"value":[1,"1"]}]}}`,
			want: []got{{"a\"b\\cé😀|1", 1}, {"été|", 1}}},
		{name: "bytes not UTF-8 in values", typ: model.ValVector,
			body: "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":{\"app\":\"a\xffb\",\"job\":\"\xed\xa0\x80\"},\"value\":[1,\"1\"]}]}}",
			want: []got{{"a\ufffdb|", 1}}},
		{name: "escaped surrogates", typ: model.ValVector,
			body: `{"status":"success","data":{"resultType":"vector","result":[{"metric":{"app":"\ud800\ud83d\ude00\udc00"},"value":[1,"1"]}]}}`,
			want: []got{{"\ufffd😀\ufffd|", 1}}},
		{name: "huge numbers in what is passed over", typ: model.ValVector,
			body: `{"status":"success","stats":{"a":` + strings.Repeat("9", 400) + `,"b":1e308,"c":-1e-400},"data":{"resultType":"vector","result":[{"metric":{"app":"a"},"value":[1,"1"]}]}}`,
			want: []got{{"a|", 1}}},
		{name: "deep nesting in what is passed over", typ: model.ValVector,
			body: `{"status":"success","x":` + strings.Repeat("[", 9999) + strings.Repeat("]", 9999) + `,"data":{"resultType":"vector","result":[]}}`},
		{name: "dropped series", typ: model.ValVector,
			body: `{"status":"success","data":{"resultType":"vector","result":[{"metric":{"app":"drop"},"value":[1,"1"]},{"metric":{"app":"k"},"value":[1,"1"]}]}}`,
			want: []got{{"k|", 1}}},
		{name: "scalar", typ: model.ValScalar,
			body: `{"status":"success","data":{"resultType":"scalar","result":[1700000000.5,"42"]}}`,
			want: []got{{"|", 42}}},
		{name: "scalar NaN", typ: model.ValScalar,
			body: `{"status":"success","data":{"resultType":"scalar","result":[1,"NaN"]}}`,
			want: []got{{"|", nan}}},
		{name: "empty vector", typ: model.ValVector,
			body: `{"status":"success","data":{"resultType":"vector","result":[]}}`},
		{name: "null result", typ: model.ValVector,
			body: `{"status":"success","data":{"resultType":"vector","result":null}}`},
		{name: "no data", body: `{"status":"success"}`},
		{name: "null data", body: `{"status":"success","data":null}`},
		{name: "warnings", typ: model.ValVector, warnings: []string{"w1", "w2"},
			body: `{"status":"success","data":{"resultType":"vector","result":[]},"warnings":["w1","w2"],"infos":["i"]}`},
		{name: "whitespace", typ: model.ValVector,
			body: " {\n \"status\" : \"success\" ,\t\"data\":{ \"resultType\" : \"vector\" , \"result\" : [ { \"metric\" : { \"app\" : \"a\" } , \"value\" : [ 1 , \"1\" ] } ] } } \n",
			want: []got{{"a|", 1}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ans, series, err := lean([]byte(tt.body))
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if ans.Type != tt.typ {
				t.Errorf("type %v, want %v", ans.Type, tt.typ)
			}
			if diff := cmp.Diff(tt.want, series, equateNaN, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("series (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.warnings, ans.Warnings, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			agree(t, []byte(tt.body))
		})
	}
}

// TestDecodeRefuses: what the lean decoder does not read is refused with
// ErrUnsupported, never misread; the caller then decodes it in full, and
// the want column says what client_golang makes of it (an error, or a
// value the lean decoder leaves to it).
func TestDecodeRefuses(t *testing.T) {
	vec := func(result string) string {
		return `{"status":"success","data":{"resultType":"vector","result":` + result + `}}`
	}
	for _, tt := range []struct {
		name, body string
		fullErr    bool // client_golang fails too
	}{
		{"empty body", ``, true},
		{"not JSON", `<html>bad gateway</html>`, true},
		{"truncated", promAnswer[:len(promAnswer)/2], true},
		{"truncated after the last series", promAnswer[:len(promAnswer)-2], true},
		{"trailing garbage", promAnswer + `x`, true},
		{"two answers", promAnswer + promAnswer, true},
		{"leading zero in a skipped number", `{"status":"success","x":01,"data":null}`, true},
		{"answer is an array", `[]`, true},
		{"answer is null", `null`, false},
		{"status is a number", `{"status":1}`, true},
		{"data is a string", `{"status":"success","data":"x"}`, true},
		{"wrong resultType", `{"status":"success","data":{"resultType":"vectorz","result":[]}}`, true},
		{"resultType is a number", `{"status":"success","data":{"resultType":1,"result":[]}}`, true},
		{"matrix", `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"app":"a"},"values":[[1,"1"]]}]}}`, false},
		{"string", `{"status":"success","data":{"resultType":"string","result":[1,"x"]}}`, true},
		{"result before resultType", `{"status":"success","data":{"result":[],"resultType":"vector"}}`, false},
		{"data without result", `{"status":"success","data":{"resultType":"vector"}}`, true},
		{"result is an object", vec(`{}`), true},
		{"sample is null", vec(`[null]`), true},
		{"sample is a number", vec(`[1]`), true},
		{"sample without value", vec(`[{"metric":{"app":"a"}}]`), false},
		{"value is null", vec(`[{"metric":{"app":"a"},"value":null}]`), false},
		{"value has one element", vec(`[{"metric":{"app":"a"},"value":[1]}]`), false},
		{"value has three elements", vec(`[{"metric":{"app":"a"},"value":[1,"1","2"]}]`), false},
		{"value is a number", vec(`[{"metric":{"app":"a"},"value":[1,1]}]`), true},
		{"value does not parse", vec(`[{"metric":{"app":"a"},"value":[1,"one"]}]`), true},
		{"value out of range", vec(`[{"metric":{"app":"a"},"value":[1,"1e400"]}]`), true},
		{"escaped value", vec(`[{"metric":{"app":"a"},"value":[1,"\u0031"]}]`), true},
		{"timestamp is a string", vec(`[{"metric":{"app":"a"},"value":["1","1"]}]`), true},
		{"timestamp has an exponent", vec(`[{"metric":{"app":"a"},"value":[1e3,"1"]}]`), true},
		{"timestamp out of range", vec(`[{"metric":{"app":"a"},"value":[99999999999999999999,"1"]}]`), true},
		{"label value is a number", vec(`[{"metric":{"app":1},"value":[1,"1"]}]`), true},
		{"other label value is null", vec(`[{"metric":{"job":null},"value":[1,"1"]}]`), false},
		{"metric is an array", vec(`[{"metric":[],"value":[1,"1"]}]`), true},
		{"histogram", vec(`[{"metric":{"app":"a"},"histogram":[1,{"count":"1","sum":"1"}]}]`), false},
		{"duplicated data", `{"status":"success","data":null,"data":null}`, false},
		{"duplicated value", vec(`[{"metric":{},"value":[1,"1"],"value":[1,"0"]}]`), false},
		{"key in another case", vec(`[{"metric":{},"Value":[1,"1"]}]`), false},
		{"key folding to a known one", `{"ſtatus":"error"}`, true},
		{"label name not UTF-8", vec("[{\"metric\":{\"ap\xffp\":\"a\"},\"value\":[1,\"1\"]}]"), false},
		{"scalar with one element", `{"status":"success","data":{"resultType":"scalar","result":[1]}}`, true},
		{"scalar value is a number", `{"status":"success","data":{"resultType":"scalar","result":[1,2]}}`, true},
		{"warnings hold a number", `{"status":"success","warnings":[1]}`, true},
		{"deep nesting", `{"status":"success","x":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`, true},
		{"nesting one level too deep", `{"status":"success","x":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`, true},
		{"trailing garbage after whitespace", promAnswer + " \n}", true},
		{"control character in a passed-over string", "{\"status\":\"success\",\"x\":\"a\tb\",\"data\":null}", true},
		{"bad escape in a passed-over string", `{"status":"success","x":"\q","data":null}`, true},
		{"bad number in a passed-over value", `{"status":"success","x":[1.],"data":null}`, true},
		{"escaped key duplicating another", `{"status":"success","st\u0061tus":"error"}`, true},
		{"escaped label name not UTF-8", vec("[{\"metric\":{\"a\\u0070\xff\":\"a\"},\"value\":[1,\"1\"]}]"), false},
		{"number beyond a float in an answer's member", `{"status":"success","x":1e400,"data":null}`, false},
		{"number beyond a float32 starting with 0", `{"status":"success","x":0.5e39,"data":null}`, false},
		{"number beyond a float in a sample's member", vec(`[{"metric":{},"value":[1,"1"],"x":-1e400}]`), true},
		{"timestamp beyond a float", vec(`[{"metric":{},"value":[1e400,"1"]}]`), true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := lean([]byte(tt.body))
			if !errors.Is(err, ErrUnsupported) {
				t.Fatalf("Decode: %v, want ErrUnsupported", err)
			}
			_, _, _, rerr := reference([]byte(tt.body))
			if (rerr != nil) != tt.fullErr {
				t.Errorf("client_golang: %v, want error %v", rerr, tt.fullErr)
			}
		})
	}
}

// TestFullErrors: an error status or an error body is decoded as
// client_golang decodes it, with its error types.
func TestFullErrors(t *testing.T) {
	for _, tt := range []struct {
		name   string
		status int
		body   string
		typ    v1.ErrorType
	}{
		{"prometheus bad_data", 400, `{"status":"error","errorType":"bad_data","error":"invalid parameter \"query\": 1:1: parse error"}`, v1.ErrBadData},
		{"prometheus execution", 422, `{"status":"error","errorType":"execution","error":"many-to-many matching not allowed"}`, v1.ErrExec},
		{"victoriametrics 422", 422, `{"status":"error","errorType":"422","error":"cannot parse query"}`, "422"},
		{"prometheus timeout", 503, `{"status":"error","errorType":"timeout","error":"query timed out"}`, v1.ErrServer},
		{"proxy 502", 502, `<html>bad gateway</html>`, v1.ErrServer},
		{"mimir 429", 429, `{"status":"error","errorType":"too_many_requests","error":"slow down"}`, v1.ErrClient},
		{"error body with 200", 200, `{"status":"error","errorType":"internal","error":"x"}`, "internal"},
		{"malformed 200", 200, `{"status":"success","data":{`, v1.ErrBadResponse},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Full(context.Background(), tt.status, []byte(tt.body))
			var e *v1.Error
			if !errors.As(err, &e) || e.Type != tt.typ {
				t.Fatalf("Full: %v, want a *v1.Error of type %q", err, tt.typ)
			}
		})
	}
}

// TestDecodeAllocations: reading an answer allocates a few things per
// answer, nothing per series, once the caller's buffer has room.
func TestDecodeAllocations(t *testing.T) {
	body, index := answer10k()
	route := func(v [][]byte) int {
		if i, ok := index[string(v[0])]; ok {
			return i
		}
		return -1
	}
	buf := make([]Series, 0, len(index))
	allocs := testing.AllocsPerRun(5, func() {
		ans, err := Decode(body, []string{"app"}, route, buf)
		if err != nil || len(ans.Series) != len(index) {
			t.Fatalf("%d series, %v", len(ans.Series), err)
		}
	})
	if allocs > 8 {
		t.Errorf("%v allocations for an answer of %d series, want at most 8", allocs, len(index))
	}
}
