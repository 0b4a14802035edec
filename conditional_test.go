package availmon

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The answers made once per snapshot: large enough (200 apps, 30 days of
// hours) that every one of them is compressed.
var encodedEndpoints = []string{
	"/api/apps",
	"/api/locations",
	"/api/locations/location-003",
	"/api/metrics/summary",
	"/api/status/history?period=30d&resolution=1h",
	"/api/status/history?period=1h&resolution=1m",
}

func getWith(t *testing.T, h http.Handler, target string, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, target, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Add(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("gzip header: %v", err)
	}
	zr.Multistream(false) // one member, as we send
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("gzip body: %v", err)
	}
	return out
}

// Every snapshot answer: a strong ETag and Vary: Accept-Encoding; the same
// bytes for every request of the snapshot, whenever it comes; with gzip
// accepted, a gzip body that decompresses to exactly the plain answer, with
// a tag of its own; a 304 without body for a matching If-None-Match (weak
// comparison, lists and "*" included) and a 200 for another tag.
func TestEncodedAnswers(t *testing.T) {
	m, clock := largeMonitor(t, 200, 10, 3)
	clock.Set(clock.Now().Truncate(time.Minute))
	h := m.Handler()
	for _, target := range encodedEndpoints {
		t.Run(target, func(t *testing.T) {
			plain := getWith(t, h, target)
			if plain.Code != http.StatusOK {
				t.Fatalf("status %d: %s", plain.Code, plain.Body)
			}
			etag := plain.Header().Get("ETag")
			if !strings.HasPrefix(etag, `"`) || !strings.HasSuffix(etag, `"`) || len(etag) < 4 {
				t.Errorf("ETag %q, want a strong tag", etag)
			}
			if v := plain.Header().Get("Vary"); v != "Accept-Encoding" {
				t.Errorf("Vary %q", v)
			}
			if ce := plain.Header().Get("Content-Encoding"); ce != "" {
				t.Errorf("Content-Encoding %q without Accept-Encoding", ce)
			}
			if cl := plain.Header().Get("Content-Length"); cl != strconv.Itoa(plain.Body.Len()) {
				t.Errorf("Content-Length %s for %d bytes", cl, plain.Body.Len())
			}
			decode(t, plain.Body.Bytes())

			// Strong: a later request of the same snapshot is the same
			// bytes under the same tag.
			clock.Advance(time.Second)
			again := getWith(t, h, target)
			if again.Header().Get("ETag") != etag || !bytes.Equal(again.Body.Bytes(), plain.Body.Bytes()) {
				t.Errorf("a second later: ETag %q (was %q), bytes equal %v", again.Header().Get("ETag"), etag,
					bytes.Equal(again.Body.Bytes(), plain.Body.Bytes()))
			}

			var gzTag string
			for _, ae := range []string{"gzip", "deflate, gzip;q=0.8", "*", "br;q=1, gzip"} {
				gz := getWith(t, h, target, "Accept-Encoding", ae)
				if gz.Code != http.StatusOK || gz.Header().Get("Content-Encoding") != "gzip" {
					t.Fatalf("Accept-Encoding %q: status %d, Content-Encoding %q", ae, gz.Code, gz.Header().Get("Content-Encoding"))
				}
				if cl := gz.Header().Get("Content-Length"); cl != strconv.Itoa(gz.Body.Len()) {
					t.Errorf("gzip Content-Length %s for %d bytes", cl, gz.Body.Len())
				}
				tag := gz.Header().Get("ETag")
				if tag == etag || !strings.HasPrefix(tag, `"`) || (gzTag != "" && tag != gzTag) {
					t.Errorf("gzip ETag %q, plain %q, earlier gzip %q", tag, etag, gzTag)
				}
				gzTag = tag
				if got := gunzip(t, gz.Body.Bytes()); !bytes.Equal(got, plain.Body.Bytes()) {
					t.Errorf("Accept-Encoding %q: decompressed body differs from the plain one (%d and %d bytes)", ae, len(got), plain.Body.Len())
				}
				if gz.Body.Len()*3 > plain.Body.Len() {
					t.Errorf("gzip %d bytes for %d plain", gz.Body.Len(), plain.Body.Len())
				}
			}
			for _, ae := range []string{"identity", "gzip;q=0", "br", "*;q=0", "gzip;q=0, *"} {
				w := getWith(t, h, target, "Accept-Encoding", ae)
				if ce := w.Header().Get("Content-Encoding"); ce != "" || !bytes.Equal(w.Body.Bytes(), plain.Body.Bytes()) {
					t.Errorf("Accept-Encoding %q: Content-Encoding %q", ae, ce)
				}
			}

			for _, tc := range []struct{ ae, inm, tag string }{
				{"", etag, etag}, {"", "W/" + etag, etag}, {"", `"x", ` + etag, etag}, {"", "*", etag},
				{"gzip", gzTag, gzTag}, {"gzip", "W/" + gzTag, gzTag}, {"gzip", `"x",` + gzTag, gzTag}, {"gzip", "*", gzTag},
			} {
				nm := getWith(t, h, target, "If-None-Match", tc.inm, "Accept-Encoding", tc.ae)
				if nm.Code != http.StatusNotModified || nm.Body.Len() != 0 {
					t.Errorf("Accept-Encoding %q, If-None-Match %s: status %d, %d bytes", tc.ae, tc.inm, nm.Code, nm.Body.Len())
				}
				if nm.Header().Get("ETag") != tc.tag || nm.Header().Get("Vary") != "Accept-Encoding" {
					t.Errorf("304 headers: %v", nm.Header())
				}
			}
			// The plain answer's tag does not stand for the gzip one.
			if w := getWith(t, h, target, "If-None-Match", etag, "Accept-Encoding", "gzip"); w.Code != http.StatusOK {
				t.Errorf("If-None-Match of the plain tag, gzip accepted: status %d", w.Code)
			}
			if w := getWith(t, h, target, "If-None-Match", `"other"`); w.Code != http.StatusOK {
				t.Errorf("If-None-Match of another tag: status %d", w.Code)
			}
		})
	}
}

// A real client through a real server: Go's transport asks for gzip,
// decompresses and checks the member's CRC and length itself.
func TestEncodedAnswersOverHTTP(t *testing.T) {
	m, _ := largeMonitor(t, 200, 10, 2)
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	for _, target := range encodedEndpoints {
		resp, err := srv.Client().Get(srv.URL + target)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatalf("%s: %v", target, err)
		}
		if !resp.Uncompressed {
			t.Errorf("%s: the transport did not get a gzip answer", target)
		}
		decode(t, body)
	}
}

// The tag follows the snapshot: after a cycle every answer is as of a new
// time, so its tag changes and the old tag gets the full answer.
func TestETagChangesWithSnapshot(t *testing.T) {
	tm := newTestMonitor(t)
	tm.src.Set("checkout", StatusUp, 100*time.Millisecond)
	tm.src.Set("search", StatusUp, 100*time.Millisecond)
	tm.src.Set("billing", StatusUp, 100*time.Millisecond)
	tm.scrape(t)
	targets := append([]string{"/api/locations/Tel%20Aviv"}, encodedEndpoints...)
	targets = slices.DeleteFunc(targets, func(s string) bool { return strings.Contains(s, "location-") })
	tags := map[string]string{}
	for _, target := range targets {
		tags[target] = getWith(t, tm.h, target).Header().Get("ETag")
	}
	tm.clock.Advance(90 * time.Second)
	tm.scrape(t) // nothing changes but the time
	for _, target := range targets {
		w := getWith(t, tm.h, target, "If-None-Match", tags[target])
		if w.Header().Get("ETag") == tags[target] || w.Code != http.StatusOK {
			t.Errorf("%s: ETag %s after the cycle, %s before; If-None-Match the old tag: status %d",
				target, w.Header().Get("ETag"), tags[target], w.Code)
		}
	}
}

// The history answer is cached per minute: within a minute it is what a
// fresh computation gives, and the first request of the next minute gets
// the buckets moved along, not the cached answer.
func TestHistoryCacheMinutes(t *testing.T) {
	m, clock := largeMonitor(t, 50, 5, 3)
	h := m.Handler()
	const target = "/api/status/history?period=1h&resolution=1m"
	fresh := func() []byte {
		var c historyCache
		return c.get(m.hist, clock.Now(), "1h", "1m", time.Hour, time.Minute).body.Head()
	}
	data := func() []byte {
		b := getWith(t, h, target).Body.Bytes()
		return b[:bytes.LastIndex(b, []byte(`,"meta":`))]
	}
	clock.Set(clock.Now().Truncate(time.Minute))
	first := data()
	if !bytes.Equal(first, fresh()) {
		t.Fatal("first answer differs from a fresh computation")
	}
	for _, step := range []time.Duration{time.Second, 58 * time.Second} {
		clock.Advance(step)
		if got := data(); !bytes.Equal(got, first) || !bytes.Equal(got, fresh()) {
			t.Fatalf("within the minute (+%v) the answer changed", step)
		}
	}
	clock.Advance(time.Second) // the next minute
	next := data()
	if bytes.Equal(next, first) {
		t.Fatal("the next minute got the cached answer")
	}
	if !bytes.Equal(next, fresh()) {
		t.Fatal("the next minute's answer differs from a fresh computation")
	}
	// A cycle in the same minute publishes a new snapshot, and its answer
	// counts the cycle.
	if err := m.Scrape(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := data(); bytes.Equal(got, next) || !bytes.Equal(got, fresh()) {
		t.Fatal("a cycle within the minute did not change the answer")
	}
}
