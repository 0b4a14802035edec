package promanswer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
)

// FuzzDecode: no body makes Decode panic, and whatever it accepts,
// client_golang decodes to the same series, values, type and warnings.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		promAnswer,
		`{"status":"success","data":{"resultType":"scalar","result":[1,"NaN"]}}`,
		`{"status":"success","data":{"resultType":"vector","result":[{"metric":{"app":"a\"b","availmon_term":"01"},"value":[1.5,"+Inf"]}]},"warnings":["w"]}`,
		`{"status":"error","errorType":"execution","error":"x"}`,
		`{"status":"success","data":{"resultType":"vector","result":[null]}}`,
		`{"status":"success","data":{"resultType":"matrix","result":[]}}`,
		`{"status":"success","data":null,"data":null}`,
		`{"ſtatus":"error"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		agree(t, body)
	})
}

// FuzzDecodeValid: answers in the shape servers send, built from fuzzed
// label values, sample values and timestamps (json.Marshal escapes some
// characters and replaces bad UTF-8), are read by Decode whenever
// client_golang reads them, to the same series.
func FuzzDecodeValid(f *testing.F) {
	f.Add("a", "1", "0", "NaN", int64(1700000000), uint16(123), uint8(2), false)
	f.Add("<é>\"\\", "+Inf", "7", "-0", int64(-5), uint16(7), uint8(3), true)
	f.Add("drop", "0x1p-2", "", "1e308", int64(0), uint16(0), uint8(1), false)
	f.Fuzz(func(t *testing.T, app, v1, tag, v2 string, ts int64, frac uint16, n uint8, escapeHTML bool) {
		type sample struct {
			Metric map[string]string `json:"metric"`
			Value  [2]any            `json:"value"`
		}
		stamp := json.Number(fmt.Sprintf("%d.%03d", ts, frac%1000))
		var result []sample
		for i := range int(n % 5) {
			v := v1
			if i%2 == 1 {
				v = v2
			}
			m := map[string]string{"__name__": "demo_up", "app": app, "job": fmt.Sprint(i)}
			if i%3 == 2 {
				m["availmon_term"] = tag
			}
			result = append(result, sample{Metric: m, Value: [2]any{stamp, v}})
		}
		// Structs keep the servers' key order: resultType before result.
		type data struct {
			ResultType string   `json:"resultType"`
			Result     []sample `json:"result"`
		}
		answer := struct {
			Status string `json:"status"`
			Data   data   `json:"data"`
		}{"success", data{"vector", result}}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(escapeHTML)
		if err := enc.Encode(answer); err != nil {
			t.Fatal(err)
		}
		body := buf.Bytes()
		accepted := agree(t, body)
		if _, _, _, err := reference(body); err == nil && !accepted {
			t.Errorf("Decode refused %s, which client_golang reads", body)
		}
	})
}
