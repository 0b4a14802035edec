package availmon

import (
	"bytes"
	"encoding/xml"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// badgeTexts parses an SVG badge and returns its <text> elements and
// <title>; it fails the test if the SVG is not well-formed XML.
func badgeTexts(t testing.TB, svg []byte) (texts []string, title string) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(svg))
	var path []string
	root := ""
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("badge is not well-formed XML: %v\n%s", err, svg)
		}
		switch tk := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = tk.Name.Local
				if tk.Name.Space != "http://www.w3.org/2000/svg" {
					t.Errorf("root element in namespace %q", tk.Name.Space)
				}
			}
			path = append(path, tk.Name.Local)
		case xml.EndElement:
			path = path[:len(path)-1]
		case xml.CharData:
			switch path[len(path)-1] {
			case "text":
				texts = append(texts, string(tk))
			case "title":
				title = string(tk)
			}
		}
	}
	if root != "svg" {
		t.Fatalf("root element %q, want svg", root)
	}
	return texts, title
}

func TestBadges(t *testing.T) {
	tm := newServiceMonitor(t, []Service{{Name: "checkout", MinUp: 2}})
	for _, a := range tm.plan.apps {
		tm.src.Set(a.Name, StatusUp, 0)
	}
	tm.src.Set("checkout-fra", StatusDown, 0)
	tm.scrape(t)
	tm.clock.Advance(time.Minute)
	tm.src.Set("checkout-fra", StatusUp, 0)
	tm.src.Set("checkout-ber", StatusDown, 0)
	tm.scrape(t)
	tests := []struct {
		path        string
		label, text string
	}{
		{"/api/badges/apps/checkout-tlv-1.svg", "checkout-tlv-1", "up"},
		{"/api/badges/apps/checkout-ber.svg", "checkout-ber", "down"},
		{"/api/badges/apps/checkout-ber.svg?value=uptime", "checkout-ber", "50.00% 24h"},
		{"/api/badges/apps/checkout-tlv-1.svg?value=state", "checkout-tlv-1", "up"},
		{"/api/badges/locations/Tel%20Aviv.svg", "Tel Aviv", "up"},
		{"/api/badges/locations/Berlin.svg", "Berlin", "down"},
		{"/api/badges/locations/Frankfurt.svg?value=uptime", "Frankfurt", "75.00% 24h"},
		{"/api/badges/services/checkout.svg", "checkout", "degraded"},
		{"/api/badges/services/checkout.svg?value=uptime", "checkout", "75.00% 24h"},
		// Parameters a badge does not know, such as a README's
		// cache-buster, are ignored.
		{"/api/badges/apps/checkout-ber.svg?v=2", "checkout-ber", "down"},
		{"/api/badges/apps/checkout-ber.svg?style=flat&value=uptime&v=2", "checkout-ber", "50.00% 24h"},
		{"/api/badges/apps/checkout-ber.svg?%zz&value=uptime", "checkout-ber", "50.00% 24h"},
		{"/api/badges/services/checkout.svg?v=2;x", "checkout", "degraded"},
	}
	for _, tt := range tests {
		rec := do(t, tm.h, http.MethodGet, tt.path, "", nil)
		if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "image/svg+xml; charset=utf-8" {
			t.Errorf("GET %s: %d %s", tt.path, rec.Code, rec.Header().Get("Content-Type"))
			continue
		}
		texts, title := badgeTexts(t, rec.Body.Bytes())
		if len(texts) != 2 || texts[0] != tt.label || texts[1] != tt.text || title != tt.label+": "+tt.text {
			t.Errorf("GET %s: texts %q, title %q; want %q, %q", tt.path, texts, title, tt.label, tt.text)
		}
		etag := rec.Header().Get("ETag")
		rec2 := do(t, tm.h, http.MethodGet, tt.path, "", http.Header{"If-None-Match": {etag}})
		if etag == "" || rec2.Code != http.StatusNotModified || rec2.Body.Len() != 0 {
			t.Errorf("GET %s with If-None-Match %s: %d", tt.path, etag, rec2.Code)
		}
		// A client may send its tags in several header lines (RFC 9110, 5.3).
		rec3 := do(t, tm.h, http.MethodGet, tt.path, "", http.Header{"If-None-Match": {`"other"`, etag}})
		if rec3.Code != http.StatusNotModified {
			t.Errorf("GET %s with If-None-Match \"other\" then %s: %d", tt.path, etag, rec3.Code)
		}
	}
	// A change of state changes the ETag.
	before := do(t, tm.h, http.MethodGet, "/api/badges/apps/checkout-ber.svg", "", nil).Header().Get("ETag")
	tm.src.Set("checkout-ber", StatusUp, 0)
	tm.scrape(t)
	rec := do(t, tm.h, http.MethodGet, "/api/badges/apps/checkout-ber.svg", "", http.Header{"If-None-Match": {before}})
	if rec.Code != http.StatusOK || rec.Header().Get("ETag") == before {
		t.Errorf("after a change: %d, ETag %s (was %s)", rec.Code, rec.Header().Get("ETag"), before)
	}
}

func TestBadgeEscapesNames(t *testing.T) {
	name := `<a&"b'>` + strings.Repeat("x", 60)
	tm := newTestMonitor(t, func(o *Options) {
		o.Apps = []App{{Name: name, Location: "Tel Aviv", Metric: "up"}}
	})
	rec := do(t, tm.h, http.MethodGet, "/api/badges/apps/"+strings.NewReplacer("<", "%3C", ">", "%3E", `"`, "%22", "&", "%26", "'", "%27").Replace(name)+".svg", "", nil)
	if rec.Code != http.StatusOK {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	texts, _ := badgeTexts(t, rec.Body.Bytes())
	if len(texts) != 2 || !strings.HasPrefix(texts[0], `<a&"b'>xxx`) || !strings.HasSuffix(texts[0], "…") || texts[1] != "unavailable" {
		t.Errorf("texts %q", texts)
	}
}

func TestBadgesBadInput(t *testing.T) {
	tm := newServiceMonitor(t, []Service{{Name: "checkout"}})
	for _, tt := range []struct {
		path string
		code int
		err  string
	}{
		{"/api/badges/apps/nope.svg", 404, "NOT_FOUND"},
		{"/api/badges/apps/checkout-ber", 404, "NOT_FOUND"},
		{"/api/badges/apps/checkout-ber.png", 404, "NOT_FOUND"},
		{"/api/badges/locations/Mars.svg", 404, "NOT_FOUND"},
		{"/api/badges/services/nope.svg", 404, "NOT_FOUND"},
		{"/api/badges/widgets/checkout.svg", 404, "NOT_FOUND"},
		{"/api/badges/apps/checkout-ber.svg?value=latency", 400, "VALIDATION_ERROR"},
		{"/api/badges/apps/checkout-ber.svg?value=state&value=uptime", 400, "VALIDATION_ERROR"},
		{"/api/badges/apps/checkout-ber.svg?value=%zz", 400, "VALIDATION_ERROR"},
		{"/api/badges/apps/checkout-ber.svg?v=2&value=", 400, "VALIDATION_ERROR"},
		// The JSON API keeps refusing parameters it does not know.
		{"/api/apps/checkout-ber?v=2", 400, "VALIDATION_ERROR"},
		{"/api/services/checkout?v=2", 400, "VALIDATION_ERROR"},
	} {
		rec := do(t, tm.h, http.MethodGet, tt.path, "", nil)
		body := decode(t, rec.Body.Bytes())
		if rec.Code != tt.code || body["error"].(map[string]any)["code"] != tt.err {
			t.Errorf("GET %s: %d %v, want %d %s", tt.path, rec.Code, body["error"], tt.code, tt.err)
		}
	}
}

// Any name and query is a well-formed badge, a 404 or a 400.
func FuzzBadge(f *testing.F) {
	for _, s := range []string{"checkout-ber.svg", "Tel%20Aviv.svg", "%zz.svg", "x.svg?value=uptime", "<&>.svg"} {
		f.Add("apps", s)
		f.Add("locations", s)
		f.Add("services", s)
	}
	tm := newServiceMonitor(f, []Service{{Name: "checkout"}})
	f.Fuzz(func(t *testing.T, kind, rest string) {
		target := "/api/badges/" + kind + "/" + rest
		req, err := http.NewRequest(http.MethodGet, "http://example.com"+target, nil)
		if err != nil {
			return
		}
		rec := httptest.NewRecorder()
		tm.h.ServeHTTP(rec, req)
		switch rec.Code {
		case http.StatusOK:
			badgeTexts(t, rec.Body.Bytes())
		case http.StatusBadRequest, http.StatusNotFound, http.StatusMethodNotAllowed:
		default:
			t.Fatalf("GET %q: %d", target, rec.Code)
		}
	})
}
