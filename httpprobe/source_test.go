package httpprobe_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/httpprobe"
)

func probeOne(t *testing.T, src *httpprobe.Source, p httpprobe.Probe) availmon.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := src.Check(ctx, []availmon.App{{Name: "a", Settings: &p}})
	if err != nil {
		t.Fatalf("Check returned an error of its own: %v", err)
	}
	if len(res) != 1 {
		t.Fatalf("Check returned %d results for 1 app", len(res))
	}
	return res[0]
}

func newHTTPSource(t *testing.T, o httpprobe.Options) *httpprobe.Source {
	t.Helper()
	src, err := httpprobe.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func TestHTTPSourceStates(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "all good") })
	mux.HandleFunc("/fail", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "maintenance", http.StatusServiceUnavailable)
	})
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/ok", http.StatusFound)
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/loop", http.StatusFound)
	})
	mux.HandleFunc("/created", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get("X-Probe") != "yes" {
			http.Error(w, "want POST with X-Probe", http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusCreated)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	src := newHTTPSource(t, httpprobe.Options{MaxRedirects: 3})

	tests := []struct {
		name    string
		probe   httpprobe.Probe
		want    availmon.Status
		errHas  string
		wantErr bool
	}{
		{name: "200 is up", probe: httpprobe.Probe{URL: srv.URL + "/ok"}, want: availmon.StatusUp},
		{name: "503 is down", probe: httpprobe.Probe{URL: srv.URL + "/fail"}, want: availmon.StatusDown, errHas: "503", wantErr: true},
		{name: "503 expected", probe: httpprobe.Probe{URL: srv.URL + "/fail", ExpectStatus: []string{"503"}}, want: availmon.StatusUp},
		{name: "404 is down", probe: httpprobe.Probe{URL: srv.URL + "/nothing"}, want: availmon.StatusDown, errHas: "404", wantErr: true},
		{name: "redirect followed to 200", probe: httpprobe.Probe{URL: srv.URL + "/moved"}, want: availmon.StatusUp},
		{name: "expected 3xx checks the redirect itself", probe: httpprobe.Probe{URL: srv.URL + "/moved", ExpectStatus: []string{"3xx"}}, want: availmon.StatusUp},
		{name: "expected 302 code", probe: httpprobe.Probe{URL: srv.URL + "/moved", ExpectStatus: []string{"302"}}, want: availmon.StatusUp},
		{name: "expected 301 but got 302", probe: httpprobe.Probe{URL: srv.URL + "/moved", ExpectStatus: []string{"301"}}, want: availmon.StatusDown, errHas: "302", wantErr: true},
		{name: "redirect loop stops and is down", probe: httpprobe.Probe{URL: srv.URL + "/loop"}, want: availmon.StatusDown, errHas: "302", wantErr: true},
		{name: "body matches", probe: httpprobe.Probe{URL: srv.URL + "/ok", BodyContains: "good"}, want: availmon.StatusUp},
		{name: "body mismatch", probe: httpprobe.Probe{URL: srv.URL + "/ok", BodyContains: "bad"}, want: availmon.StatusDown, errHas: `does not contain "bad"`, wantErr: true},
		{name: "method and headers", probe: httpprobe.Probe{URL: srv.URL + "/created", Method: "POST", Headers: map[string]string{"X-Probe": "yes"}, ExpectStatus: []string{"201"}}, want: availmon.StatusUp},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := probeOne(t, src, tt.probe)
			if got.Status != tt.want {
				t.Fatalf("status = %s, want %s (err %v)", got.Status, tt.want, got.Err)
			}
			if (got.Err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error: %v", got.Err, tt.wantErr)
			}
			if tt.errHas != "" && !strings.Contains(got.Err.Error(), tt.errHas) {
				t.Errorf("err %q does not mention %q", got.Err, tt.errHas)
			}
			if got.ResponseTime <= 0 {
				t.Errorf("response time = %v, want > 0", got.ResponseTime)
			}
		})
	}
}

func TestHTTPSourceNoAnswerIsUnavailable(t *testing.T) {
	// A port that was just closed refuses connections.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String() + "/"
	l.Close()

	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	defer close(release)

	src := newHTTPSource(t, httpprobe.Options{})
	for _, tt := range []struct {
		name   string
		probe  httpprobe.Probe
		errHas string
	}{
		{"connection refused", httpprobe.Probe{URL: closed}, "refused"},
		{"slow server past timeout", httpprobe.Probe{URL: slow.URL, Timeout: 100 * time.Millisecond}, "deadline exceeded"},
		{"unresolvable host", httpprobe.Probe{URL: "http://availmon-test.invalid./"}, "availmon-test.invalid"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := probeOne(t, src, tt.probe)
			if got.Status != availmon.StatusUnavailable {
				t.Fatalf("status = %s, want unavailable (err %v)", got.Status, got.Err)
			}
			if got.Err == nil || !strings.Contains(got.Err.Error(), tt.errHas) {
				t.Fatalf("err = %v, want it to mention %q", got.Err, tt.errHas)
			}
		})
	}
}

func TestHTTPSourceTLS(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	src := newHTTPSource(t, httpprobe.Options{})

	got := probeOne(t, src, httpprobe.Probe{URL: srv.URL})
	if got.Status != availmon.StatusUnavailable || got.Err == nil || !strings.Contains(got.Err.Error(), "certificate") {
		t.Fatalf("self-signed without tls_skip_verify: got %s, %v; want unavailable with a certificate error", got.Status, got.Err)
	}
	got = probeOne(t, src, httpprobe.Probe{URL: srv.URL, TLSSkipVerify: true})
	if got.Status != availmon.StatusUp {
		t.Fatalf("self-signed with tls_skip_verify: got %s, %v; want up", got.Status, got.Err)
	}
	// The skip must not leak into probes that did not ask for it.
	got = probeOne(t, src, httpprobe.Probe{URL: srv.URL})
	if got.Status != availmon.StatusUnavailable {
		t.Fatalf("after a skipping probe, a verifying probe got %s", got.Status)
	}
}

// countingBody counts what the server managed to write of an endless body.
func TestHTTPSourceHugeBodyNotReadWhole(t *testing.T) {
	var written atomic.Int64
	chunk := []byte(strings.Repeat("x", 32<<10))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for r.Context().Err() == nil {
			n, err := w.Write(chunk)
			written.Add(int64(n))
			if err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	src := newHTTPSource(t, httpprobe.Options{MaxBodyBytes: 64 << 10})

	got := probeOne(t, src, httpprobe.Probe{URL: srv.URL, BodyContains: "needle", Timeout: 5 * time.Second})
	if got.Status != availmon.StatusDown {
		t.Fatalf("status = %s (%v), want down: the needle is not in the first 64 KiB", got.Status, got.Err)
	}
	if !strings.Contains(got.Err.Error(), "65536 bytes") {
		t.Errorf("err = %v, want it to say how much was read", got.Err)
	}
	// The server could only push what the socket buffers held beyond the
	// 64 KiB read; an endless body read whole would never have returned.
	if n := written.Load(); n > 64<<20 {
		t.Errorf("server wrote %d bytes: the body was read far past the bound", n)
	}
}

func TestHTTPProbeValidate(t *testing.T) {
	for _, tt := range []struct {
		probe httpprobe.Probe
		want  string
	}{
		{httpprobe.Probe{}, "url is empty"},
		{httpprobe.Probe{URL: "ftp://x/"}, "scheme"},
		{httpprobe.Probe{URL: "http:///path"}, "no host"},
		{httpprobe.Probe{URL: "http://x/", Method: "GE T"}, "method"},
		{httpprobe.Probe{URL: "http://x/", ExpectStatus: []string{"2x"}}, "expect_status"},
		{httpprobe.Probe{URL: "http://x/", ExpectStatus: []string{"700"}}, "expect_status"},
		{httpprobe.Probe{URL: "http://x/", Timeout: -time.Second}, "negative"},
		{httpprobe.Probe{URL: "http://x/", Headers: map[string]string{"Bad Header": "v"}}, "header"},
	} {
		err := tt.probe.Validate()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Validate(%+v) = %v, want an error mentioning %q", tt.probe, err, tt.want)
		}
	}
	ok := httpprobe.Probe{URL: "https://example.test/healthz", Method: "head", ExpectStatus: []string{"2xx", "301"}}
	if err := ok.Validate(); err != nil {
		t.Errorf("Validate(good probe) = %v", err)
	}
	// New refuses an app whose probe is invalid, naming the app.
	_, err := availmon.New(availmon.Options{
		Locations: []availmon.Location{{Name: "here"}},
		Apps:      []availmon.App{{Name: "web", Location: "here", Settings: &httpprobe.Probe{URL: "nope"}}},
		Source:    newHTTPSource(t, httpprobe.Options{}),
	})
	if err == nil || !strings.Contains(err.Error(), `app "web": http:`) {
		t.Errorf("New with a bad probe: %v", err)
	}
}

// probeFarm is a monitor of apps HTTP apps, all probing one loopback target
// that counts the connections opened to it.
func probeFarm(tb testing.TB, apps, parallel int) (*availmon.Monitor, *atomic.Int64) {
	tb.Helper()
	conns := new(atomic.Int64)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "ok")
	}))
	srv.Config.ConnState = func(c net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	tb.Cleanup(srv.Close)
	src, err := httpprobe.New(httpprobe.Options{MaxParallel: parallel})
	if err != nil {
		tb.Fatal(err)
	}
	opts := availmon.Options{
		Locations:   []availmon.Location{{Name: "here"}},
		Backends:    []availmon.Backend{{Name: "http", Source: src}},
		MaxParallel: parallel,
	}
	for i := range apps {
		opts.Apps = append(opts.Apps, availmon.App{Name: fmt.Sprintf("app-%d", i), Location: "here",
			Settings: &httpprobe.Probe{URL: srv.URL + "/", BodyContains: "ok"}})
	}
	m, err := availmon.New(opts)
	if err != nil {
		tb.Fatal(err)
	}
	return m, conns
}

// TestHTTPSourceConnectionsBounded checks the figure: a cycle of many
// HTTP apps against one target opens no more connections than MaxParallel,
// and the next cycle reuses them.
func TestHTTPSourceConnectionsBounded(t *testing.T) {
	const apps, parallel = 300, 16
	m, conns := probeFarm(t, apps, parallel)
	h := m.Handler()
	for cycle := range 2 {
		if err := m.Scrape(context.Background()); err != nil {
			t.Fatal(err)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/status", nil))
		if !strings.Contains(rec.Body.String(), fmt.Sprintf(`"applications_up":%d`, apps)) {
			t.Fatalf("cycle %d: status %s, want all %d apps up", cycle, rec.Body, apps)
		}
	}
	if n := conns.Load(); n > parallel {
		t.Errorf("two cycles of %d probes opened %d connections, want at most %d", apps, n, parallel)
	}
}

// BenchmarkHTTPCycle1000 is the figure: one cycle of 1,000 HTTP apps
// against one loopback target with MaxParallel 64. It reports the
// connections the target saw opened per cycle.
func BenchmarkHTTPCycle1000(b *testing.B) {
	m, conns := probeFarm(b, 1000, 64)
	b.ReportAllocs()
	for b.Loop() {
		if err := m.Scrape(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(conns.Load())/float64(b.N), "conns/cycle")
	b.ReportMetric(float64(conns.Load()), "conns_total")
}
