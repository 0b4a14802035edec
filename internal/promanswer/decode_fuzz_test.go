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
	addSeeds(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		agree(t, body)
	})
}

// addSeeds adds the oracle's seeds short enough to be mutated.
func addSeeds(f *testing.F) {
	for _, s := range oracleSeeds {
		if len(s) <= 4096 {
			f.Add([]byte(s))
		}
	}
}

// FuzzDecodeOracle: for any body, Decode accepts it iff the decoder before
// it did (encoding/json.Valid, then json-iterator), reads the same answer,
// refuses it for the same reason, and accepts only valid JSON.
func FuzzDecodeOracle(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		sameAsJsoniter(t, body)
	})
}

// FuzzDecodeOracleShaped: as FuzzDecodeOracle, on answers in the servers'
// shape with fuzzed text where a label value, a timestamp, a sample value
// and one more member (in the envelope, data, metric, sample or after
// data) go, so that the fuzzer spends its time in what the answers hold;
// and client_golang reads what Decode accepts to the same.
func FuzzDecodeOracleShaped(f *testing.F) {
	f.Add(`"x"`, `1`, `"a"`, `1700000000.5`, `"1"`, uint8(0))
	f.Add(`"stats"`, `{"n":[1e3,-0.5,"\u00e9"]}`, `"a\u0062"`, `-1`, `"NaN"`, uint8(4))
	f.Add(`"job"`, `"x"`, `"\ud83d\ude00"`, `1.123e5`, `"+Inf"`, uint8(2))
	f.Add(`"Value"`, `null`, `"drop"`, `0`, `"1e400"`, uint8(3))
	f.Add(`"infos"`, `["i"]`, "\"\xff\"", `1e400`, `"\u0031"`, uint8(0))
	f.Add(`"resultType"`, `"scalar"`, `"a"`, `1`, `"1"`, uint8(1))
	f.Fuzz(func(t *testing.T, key, val, app, ts, v string, where uint8) {
		var slots [5]string
		slots[where%5] = "," + key + ":" + val
		body := []byte(`{"status":"success"` + slots[0] + `,"data":{"resultType":"vector"` + slots[1] +
			`,"result":[{"metric":{"app":` + app + slots[2] + `},"value":[` + ts + `,` + v + `]` + slots[3] +
			`}]}` + slots[4] + `}`)
		sameAsJsoniter(t, body)
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
