package promanswer

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// decoded is what a decoder made of a body: the answer, the label values
// it showed route (in order), and its error.
type decoded struct {
	ans    Answer
	routed [][]string
	err    error
}

type decodeFunc func([]byte, []string, func([][]byte) int, []Series) (Answer, error)

func decodeWith(dec decodeFunc, body []byte) decoded {
	var out decoded
	route := func(values [][]byte) int {
		v := make([]string, len(values))
		for i, b := range values {
			v[i] = string(b)
		}
		out.routed = append(out.routed, v)
		if v[0] == "drop" {
			return -1
		}
		return len(out.routed) - 1
	}
	out.ans, out.err = dec(body, testLabels, route, nil)
	return out
}

// sameAsJsoniter checks that Decode accepts body iff the decoder before it
// (encoding/json.Valid, then json-iterator) did, reading the same answer
// and showing route the same label values, and refuses it for the same
// reason; and that it accepts only valid JSON.
func sameAsJsoniter(t *testing.T, body []byte) (accepted bool) {
	t.Helper()
	got := decodeWith(Decode, body)
	want := decodeWith(decodeJsoniter, body)
	if got.err == nil && !json.Valid(body) {
		t.Fatalf("Decode accepted %.300q, which is not valid JSON", body)
	}
	switch {
	case (got.err == nil) != (want.err == nil):
		t.Fatalf("Decode of %.300q: %v, json-iterator: %v", body, got.err, want.err)
	case got.err != nil:
		g, w := got.err.Error(), want.err.Error()
		if g != w && !(strings.Contains(w, jsoniterTag) && strings.Contains(g, "beyond json-iterator's range")) {
			t.Fatalf("Decode of %.300q: %v, json-iterator: %v", body, g, w)
		}
		return false
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(decoded{}), cmpopts.EquateNaNs(),
		cmpopts.IgnoreFields(decoded{}, "err")); diff != "" {
		t.Fatalf("Decode of %.300q (-json-iterator +Decode):\n%s", body, diff)
	}
	return true
}

// oracleSeeds are answers where reading once, as Decode does, could differ
// from validating first and decoding after.
var oracleSeeds = []string{
	promAnswer,
	"{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":{\"app\":\"a\xffb\",\"job\":\"\xc3\"},\"value\":[1,\"1\"]}]}}",
	"{\"status\":\"success\",\"x\":\"\xed\xa0\x80\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":{\"app\":\"\xed\xa0\x80\xf0\x9f\x98\"},\"value\":[1,\"1\"]}]}}",
	"{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":{\"ap\xffp\":\"a\"},\"value\":[1,\"1\"]}]}}",
	"{\"status\":\"succ\x01ess\"}",
	`{"status":"success","data":{"resultType":"vector","result":[{"metric":{"app":"\ud800\ud800\udc00x\udc00\ud83d\ude00\ud83d\u0041\ud83d\n"},"value":[1,"1"]}]}}`,
	`{"status":"success","data":{"resultType":"vector","result":[{"metric":{"\u0061pp":"a","\u0061vailmon_term":"\u0031","\ud800\ud800\udc00":"x"},"value":[1,"1"]}]}}`,
	`{"st\u0061tus":"success","\u0064ata":{"resultType":"vector","\u0072esult":[{"m\u0065tric":{},"valu\u0065":[1,"1"]}]}}`,
	`{"\u0073tatus":"error","\u017ftatus":1}`,
	`{"status":"success","data":{"resultType":"vector","result":[{"metric":{"app":"a"},"Metric":{"app":"b"},"value":[1,"1"]}]}}`,
	`{"status":"success","status":"success"}`,
	`{"status":"success","data":{"resultType":"vector","result":[]}} x`,
	`{"status":"success","data":{"resultType":"vector","result":[]}}}`,
	`{"status":"success","data":{"resultType":"vector","result":[]}}` + "\x00",
	`{"status":"success","data":{"resultType":"vector","result":[],}}`,
	`{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"1"],}]}}`,
	`{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"1",]}]}}`,
	`{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"1"]},]}}`,
	`{"status":"success","x":1e400,"data":null}`,
	`{"status":"success","x":-1e400,"data":null}`,
	`{"status":"success","x":0.5e39,"y":0.5e40,"data":null}`,
	`{"status":"success","x":1e-400,"y":0e999999999,"data":null}`,
	`{"status":"success","x":` + strings.Repeat("9", 400) + `,"y":-` + strings.Repeat("9", 400) + `}`,
	`{"status":"success","x":1e400,"data":{"resultType":"matrix","result":[]}}`,
	`{"status":"success","x":1e400,"data":{"resultType":"vector","result":[]},"y":01}`,
	`{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1e400,"1"]}]}}`,
	`{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1.123e5,"1"]}]}}`,
	`{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[-0.5,"1"]},{"metric":{},"value":[1.12e5,"1"]}]}}`,
	`{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[9223372036854775808,"1"]}]}}`,
	`{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"0x1p-2"]},{"metric":{},"value":[1,"1_0"]}]}}`,
	`{"status":"success","data":{"resultType":"scalar","result":[1,"\u0031"]}}`,
	`{"status":"success","data":{"resultType":"scalar","result":[1,"1",2]}}`,
	`{"status":"success","data":{"resultType":"scalar","result":[1,3]}}`,
	`{"status":"success","warnings":["a\u00e9\ud800","b"],"infos":["i",1]}`,
	`{"status":"success","warnings":[],"infos":null}`,
	`{"status":"success","x":[tru, 1]}`,
	`{"status":"success","x":[true,false,null,{"a":[{}]},-0,0.0e+1,1E-2,"\/\b\f\n\r\t\"\\"]}`,
	`{"status":"success","x":-}`,
	`{"status":"success","x":1.}`,
	`{"status":"success","x":.5}`,
	`{"status":"success","x":1e}`,
	`{"status":"success","x":"\x"}`,
	`{"status":"success","x":"\u12g4"}`,
	`{"status":"success","x":{"a" 1}}`,
	`{"status":"success","x":{1:1}}`,
	`{"status":"success","x":` + strings.Repeat("[", 9999) + strings.Repeat("]", 9999) + `}`,
	`{"status":"success","x":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`,
	`{"status":"success","x":` + strings.Repeat(`{"a":`, 9999) + "1" + strings.Repeat("}", 9999) + `}`,
	`{"status":"success","x":` + strings.Repeat(`{"a":`, 10000) + "1" + strings.Repeat("}", 10000) + `}`,
	`{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"1"],"x":` + strings.Repeat("[", 9996) + strings.Repeat("]", 9996) + `}]}}`,
	`{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"1"],"x":` + strings.Repeat("[", 9997) + strings.Repeat("]", 9997) + `}]}}`,
}

// TestDecodeSameAsJsoniter: on answers where a single pass could differ
// from validating first, Decode accepts, reads and refuses as the decoder
// before it did.
func TestDecodeSameAsJsoniter(t *testing.T) {
	for i, body := range oracleSeeds {
		t.Run(fmt.Sprint(i), func(t *testing.T) { sameAsJsoniter(t, []byte(body)) })
	}
}
