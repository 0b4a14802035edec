package web_test

// The page in a real browser: Debian's Chromium, driven by playwright-core
// from ui/node_modules (`npm ci` in ui/), against a real Monitor with
// HTTP-probe and Source-driven apps (and, for the services and maintenance
// panels, services and maintenance windows). The checks themselves are in
// ui/test/browser.mjs; this file starts the servers it talks to and plays
// the world (apps flipping, the server going away) when the script asks.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/hmac"
	"github.com/availmon/availmon/httpprobe"
	"github.com/availmon/availmon/objective"
	"github.com/availmon/availmon/web"
)

// browserTools returns the Chromium and node executables, or skips the test
// when one is missing (fails instead when CI is set: there the browser
// tests must run).
func browserTools(t *testing.T) (chromium, node string) {
	t.Helper()
	missing := func(what string) {
		msg := what + " not found; install Debian's chromium and nodejs/npm, then run npm ci in web/ui"
		if os.Getenv("CI") != "" {
			t.Fatal(msg + "; CI is set, so the browser tests must run")
		}
		t.Skip(msg)
	}
	chromium = os.Getenv("AVAILMON_CHROMIUM")
	if chromium == "" {
		var err error
		if chromium, err = exec.LookPath("chromium"); err != nil {
			missing("chromium")
		}
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node")
	}
	for _, dir := range []string{"ui/node_modules/playwright-core", "ui/node_modules/axe-core"} {
		if _, err := os.Stat(dir); err != nil {
			missing(dir)
		}
	}
	return chromium, node
}

// switchSource answers for the Source-driven apps with whatever the test
// last set.
type switchSource struct {
	mu     sync.Mutex
	status map[string]availmon.Status
}

func (s *switchSource) set(app string, st availmon.Status) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.status[app]; !ok {
		return false
	}
	s.status[app] = st
	return true
}

func (s *switchSource) check(_ context.Context, app availmon.App) availmon.Result {
	s.mu.Lock()
	st := s.status[app.Name]
	s.mu.Unlock()
	r := availmon.Result{Status: st, ResponseTime: 3 * time.Millisecond}
	switch st {
	case availmon.StatusDown:
		r.Err = errors.New("the test set it down")
	case availmon.StatusUnavailable:
		r.Err = errors.New("the test set it unavailable")
	}
	return r
}

// gate holds back a Source's answers until the test releases it (or the
// cycle ends): the cycle, and so every app's first check, wait for the test.
type gate struct {
	ch   chan struct{}
	once sync.Once
}

func newGate() *gate { return &gate{ch: make(chan struct{})} }

func (g *gate) release() { g.once.Do(func() { close(g.ch) }) }

// wrap returns src held back by the gate.
func (g *gate) wrap(src availmon.Source) availmon.Source {
	return gatedSource{g, src}
}

type gatedSource struct {
	g   *gate
	src availmon.Source
}

func (s gatedSource) Check(ctx context.Context, apps []availmon.App) ([]availmon.Result, error) {
	select {
	case <-s.g.ch:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return s.src.Check(ctx, apps)
}

// probeTarget is what the HTTP-probe apps probe: each path answers the
// status code the test last set.
type probeTarget struct {
	mu    sync.Mutex
	codes map[string]int
}

func (p *probeTarget) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	code, ok := p.codes[r.URL.Path]
	p.mu.Unlock()
	if !ok {
		code = http.StatusNotFound
	}
	w.WriteHeader(code)
}

// fleet is one monitor served with its page at / and under /status/, that
// the test can stop and start again on the same address.
type fleet struct {
	t      *testing.T
	m      *availmon.Monitor
	src    *switchSource
	target *probeTarget
	probes map[string]string // http app -> path on target
	h      http.Handler
	opts   availmon.Options
	gate   *gate // holds back the switch source, when set
	stubs  *apiStubs

	mu      sync.Mutex
	addr    string
	srv     *http.Server
	stopRun context.CancelFunc
	runDone chan error
}

type appSpec struct {
	name, location string
	status         availmon.Status
	probe          bool // an HTTP probe of the target rather than the switch source
}

// newFleet starts a fleet of apps; configure, if given, changes the
// Options before the monitor is made.
func newFleet(t *testing.T, locs []availmon.Location, apps []appSpec, configure ...func(*availmon.Options)) *fleet {
	t.Helper()
	f := &fleet{t: t, src: &switchSource{status: map[string]availmon.Status{}},
		target: &probeTarget{codes: map[string]int{}}, probes: map[string]string{}}
	target := httptest.NewServer(f.target)
	t.Cleanup(target.Close)
	httpSrc, err := httpprobe.New(httpprobe.Options{})
	if err != nil {
		t.Fatal(err)
	}
	opts := availmon.Options{
		Locations: locs,
		Backends: []availmon.Backend{
			{Name: "switch", Source: availmon.SourceFunc(f.src.check), BatchSize: 1000},
			{Name: "http", Source: httpSrc},
		},
		Interval: time.Second,
	}
	for i, a := range apps {
		app := availmon.App{Name: a.name, Location: a.location, Backend: "switch"}
		if a.probe {
			path := fmt.Sprintf("/probe/%d", i)
			f.probes[a.name] = path
			f.target.codes[path] = probeCode(a.status)
			app.Backend, app.Settings = "http", &httpprobe.Probe{URL: target.URL + path}
		} else {
			f.src.status[a.name] = a.status
		}
		opts.Apps = append(opts.Apps, app)
	}
	for _, c := range configure {
		c(&opts)
	}
	f.opts = opts
	if f.m, err = availmon.New(opts); err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/", web.Handler(f.m.Handler()))
	mux.Handle("/status/", http.StripPrefix("/status", web.Handler(f.m.Handler())))
	f.stubs = &apiStubs{next: mux}
	f.h = f.stubs
	f.start()
	t.Cleanup(f.stop)
	return f
}

func probeCode(s availmon.Status) int {
	if s == availmon.StatusUp {
		return http.StatusOK
	}
	return http.StatusServiceUnavailable
}

// start serves the fleet (again) on its address and runs the monitor.
func (f *fleet) start() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.srv != nil {
		return
	}
	addr := f.addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		f.t.Errorf("listening again on %s: %v", addr, err)
		return
	}
	f.addr = ln.Addr().String() // the same address again after a stop
	f.srv = &http.Server{Handler: f.h, ReadHeaderTimeout: 10 * time.Second}
	go f.srv.Serve(ln)
	ctx, cancel := context.WithCancel(context.Background())
	f.stopRun, f.runDone = cancel, make(chan error, 1)
	go func() { f.runDone <- f.m.Run(ctx) }()
}

func (f *fleet) address() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.addr
}

// stop ends the monitor's run (its /api/ws clients get the shutdown event)
// and closes the server, so that the page finds nothing there.
func (f *fleet) stop() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.srv == nil {
		return
	}
	f.stopRun()
	if err := <-f.runDone; err != nil {
		f.t.Errorf("Run: %v", err)
	}
	f.srv.Close()
	f.srv = nil
}

// flip sets an app's next state: the switch source's answer, or the
// status code its probe gets.
func (f *fleet) flip(app string, st availmon.Status) bool {
	if path, ok := f.probes[app]; ok {
		f.target.mu.Lock()
		f.target.codes[path] = probeCode(st)
		f.target.mu.Unlock()
		return true
	}
	return f.src.set(app, st)
}

// control is the script's way to play the world.
func (f *fleet) control() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /flip", func(w http.ResponseWriter, r *http.Request) {
		st := availmon.Status(r.FormValue("status"))
		if !st.Valid() || !f.flip(r.FormValue("app"), st) {
			http.Error(w, "unknown app or status", http.StatusBadRequest)
		}
	})
	// flip-many turns the first n up apps of the switch source down, all
	// in one cycle.
	mux.HandleFunc("POST /flip-many", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.FormValue("n"))
		f.src.mu.Lock()
		defer f.src.mu.Unlock()
		flipped := 0
		for i := 0; flipped < n; i++ {
			name := fmt.Sprintf("app-%05d", i)
			st, ok := f.src.status[name]
			if !ok {
				break
			}
			if st == availmon.StatusUp {
				f.src.status[name] = availmon.StatusDown
				flipped++
			}
		}
		fmt.Fprint(w, flipped)
	})
	// add-location reconfigures the running monitor with one more location
	// and an up app there.
	mux.HandleFunc("POST /add-location", func(w http.ResponseWriter, r *http.Request) {
		lat, _ := strconv.ParseFloat(r.FormValue("latitude"), 64)
		lon, _ := strconv.ParseFloat(r.FormValue("longitude"), 64)
		loc, app := r.FormValue("location"), r.FormValue("app")
		f.src.mu.Lock()
		f.src.status[app] = availmon.StatusUp
		f.src.mu.Unlock()
		f.opts.Locations = append(f.opts.Locations, availmon.Location{Name: loc, Latitude: lat, Longitude: lon})
		f.opts.Apps = append(f.opts.Apps, availmon.App{Name: app, Location: loc, Backend: "switch"})
		if _, err := f.m.Reconfigure(f.opts); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
		}
	})
	// maintenance adds the window in the body through the API, signed;
	// maintenance-delete deletes the window ?id=.
	mux.HandleFunc("POST /maintenance", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		f.signed(w, http.MethodPost, "/api/maintenance", body)
	})
	mux.HandleFunc("POST /maintenance-delete", func(w http.ResponseWriter, r *http.Request) {
		f.signed(w, http.MethodDelete, "/api/maintenance/"+url.PathEscape(r.FormValue("id")), nil)
	})
	mux.HandleFunc("POST /release", func(w http.ResponseWriter, r *http.Request) {
		if f.gate == nil {
			http.Error(w, "the fleet has no gate", http.StatusBadRequest)
			return
		}
		f.gate.release()
	})
	f.stubs.control(mux)
	mux.HandleFunc("POST /objectives", f.setObjectives)
	mux.HandleFunc("POST /stop", func(w http.ResponseWriter, r *http.Request) { f.stop() })
	mux.HandleFunc("POST /start", func(w http.ResponseWriter, r *http.Request) { f.start() })
	return mux
}

// setObjectives reconfigures the running monitor with ?mode=list's three
// objectives on apps of smallFleet (one up, one down, one unavailable:
// every column orders them differently), or with none, and answers once
// /api/objectives shows them.
func (f *fleet) setObjectives(w http.ResponseWriter, r *http.Request) {
	obj := func(name, target, window, app string) objective.Objective {
		tg, err := objective.ParseTarget(target)
		if err != nil {
			panic(err)
		}
		win, err := objective.ParseWindow(window)
		if err != nil {
			panic(err)
		}
		return objective.Objective{Name: name, Target: tg, Window: win, Subject: objective.Subject{App: app},
			Labels: map[string]string{"team": "web"}}
	}
	var objs []objective.Objective
	if r.FormValue("mode") == "list" {
		objs = []objective.Objective{obj("checkout", "99.95%", "30d", "london-web"),
			obj("api-gateway", "99%", "30d", "telaviv-db"), obj("web-front", "99.9%", "month", "ny-batch")}
	}
	f.opts.Objectives = objs
	if _, err := f.m.Reconfigure(f.opts); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	// The objectives are evaluated at the next cycle (every second).
	ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		rec := httptest.NewRecorder()
		f.m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/objectives", nil))
		var body struct{ Data []any }
		if json.Unmarshal(rec.Body.Bytes(), &body) == nil && len(body.Data) == len(objs) {
			return
		}
		select {
		case <-ctx.Done():
			http.Error(w, "the objectives did not show: "+ctx.Err().Error(), http.StatusInternalServerError)
			return
		case <-tick.C:
		}
	}
}

// fleetSecret signs the control server's writes: the page itself never
// writes, so only the test needs it.
var fleetSecret = []byte("browser-test-secret")

// signed sends a signed request to the monitor's API, as an operator's
// tool would, and copies the answer to w.
func (f *fleet) signed(w http.ResponseWriter, method, path string, body []byte) {
	r := httptest.NewRequest(method, path, bytes.NewReader(body))
	if err := hmac.SignRequest(r, fleetSecret, time.Now()); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	rec := httptest.NewRecorder()
	f.m.Handler().ServeHTTP(rec, r)
	w.WriteHeader(rec.Code)
	w.Write(rec.Body.Bytes())
}

// runScript runs ui/test/browser.mjs for one scenario against the fleet.
func runScript(t *testing.T, f *fleet, scenario, path string, env ...string) {
	t.Helper()
	chromium, node := browserTools(t)
	ctl := httptest.NewServer(f.control())
	defer ctl.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join("test", "browser.mjs"), scenario)
	cmd.Dir = "ui"
	cmd.Env = append(os.Environ(), append(env,
		"AVAILMON_CHROMIUM="+chromium,
		"AVAILMON_BASE=http://"+f.address()+path,
		"AVAILMON_CONTROL="+ctl.URL,
	)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	t.Logf("browser.mjs %s %s:\n%s", scenario, path, out.String())
	if err != nil {
		t.Fatalf("browser.mjs %s %s: %v", scenario, path, err)
	}
}

// A small fleet with a location in every state.
func smallFleet(t *testing.T, configure ...func(*availmon.Options)) *fleet {
	up, down, unav := availmon.StatusUp, availmon.StatusDown, availmon.StatusUnavailable
	return newFleet(t, []availmon.Location{
		{Name: "London", Latitude: 51.5072, Longitude: -0.1276},
		{Name: "Tel Aviv", Latitude: 32.0853, Longitude: 34.7818},
		{Name: "New York", Latitude: 40.7128, Longitude: -74.006},
		{Name: "Sydney", Latitude: -33.8688, Longitude: 151.2093},
		{Name: "São Paulo", Latitude: -23.5505, Longitude: -46.6333},
		{Name: "Tokyo", Latitude: 35.6762, Longitude: 139.6503},
		{Name: "Reykjavík", Latitude: 64.1466, Longitude: -21.9426},
	}, []appSpec{
		{"london-web", "London", up, false},
		{"london-api", "London", up, true},
		{"telaviv-web", "Tel Aviv", up, true},
		{"telaviv-db", "Tel Aviv", down, false},
		{"ny-web", "New York", up, false},
		{"ny-batch", "New York", unav, false},
		{"sydney-web", "Sydney", unav, false},
		{"saopaulo-web", "São Paulo", up, true},
		{"saopaulo-api", "São Paulo", up, false},
		{"tokyo-web", "Tokyo", down, true},
	}, configure...)
}

// servicesFleet is the small fleet with two services (the *-web apps, of
// which three locations must be up, and the *-api apps) and maintenance
// windows: Sydney's open now, a daily one of the web service that opens
// in about twelve hours, and one of ny-batch that is over. Writes must be
// signed, as the control server's are.
func servicesFleet(t *testing.T) *fleet {
	now := time.Now().UTC()
	later := now.Add(12 * time.Hour)
	verifier, err := hmac.NewVerifier(hmac.VerifierOptions{Secrets: [][]byte{fleetSecret}})
	if err != nil {
		t.Fatal(err)
	}
	return smallFleet(t, func(o *availmon.Options) {
		o.Authenticator = verifier
		for i := range o.Apps {
			switch a := &o.Apps[i]; {
			case strings.HasSuffix(a.Name, "-web"):
				a.Labels = map[string]string{"service": "web", "tier": "front"}
			case strings.HasSuffix(a.Name, "-api"):
				a.Labels = map[string]string{"service": "api"}
			}
		}
		o.Services = []availmon.Service{{Name: "web", MinUp: 3}, {Name: "api"}}
		o.Maintenance = []availmon.MaintenanceWindow{
			{ID: "sydney-disks", Location: "Sydney", From: now.Add(-time.Hour), To: now.Add(2 * time.Hour), Comment: "disk replacement"},
			{ID: "web-daily", Service: "web", Cron: fmt.Sprintf("%d %d * * *", later.Minute(), later.Hour()), Duration: time.Hour,
				Comment: "daily deploy"},
			{ID: "batch-done", App: "ny-batch", From: now.Add(-3 * time.Hour), To: now.Add(-2 * time.Hour)},
		}
	})
}

// Markers, selection, live flips, accessibility and loopback-only, at the
// root and under a prefix.
func TestBrowserPage(t *testing.T) {
	browserTools(t)
	for _, path := range []string{"/", "/status/"} {
		t.Run(path, func(t *testing.T) {
			f := smallFleet(t)
			runScript(t, f, "page", path)
		})
	}
}

// The services and maintenance panels against a monitor with services and
// windows: what they show at load, a service changing state as its apps
// flip, a window added through the API that opens and closes while the
// page watches (its apps marked on the map, in the lists and in the
// services), and an open window deleted. AVAILMON_SCREENSHOT=path saves
// the page as docs show it (web/screenshot.png).
func TestBrowserServicesMaintenance(t *testing.T) {
	browserTools(t)
	var env []string
	if shot := os.Getenv("AVAILMON_SCREENSHOT"); shot != "" {
		env = append(env, "AVAILMON_SCREENSHOT="+shot)
	}
	runScript(t, servicesFleet(t), "services", "/", env...)
}

// The server goes away and comes back: the page says so, then recovers
// and shows what changed meanwhile.
func TestBrowserReconnect(t *testing.T) {
	browserTools(t)
	runScript(t, smallFleet(t), "reconnect", "/")
}

// gatedFleet is the small fleet checked once an hour, its switch source
// held back by a gate: until the script says "release", the first cycle
// does not end and no app has been checked; an app added by a
// reconfiguration after it stays unchecked for the rest of the test.
func gatedFleet(t *testing.T) *fleet {
	g := newGate()
	f := smallFleet(t, func(o *availmon.Options) {
		o.Interval, o.Timeout = time.Hour, time.Hour
		o.Backends[0].Source = g.wrap(o.Backends[0].Source)
	})
	f.gate = g
	t.Cleanup(g.release) // before the fleet stops (cleanups run last first)
	return f
}

// The page opened before the first cycle has ended: no app has been
// checked, so the stream's snapshot is empty, and the page is in sync all
// the same, showing every app as not checked yet; then the first checks
// arrive.
func TestBrowserUnchecked(t *testing.T) {
	browserTools(t)
	runScript(t, gatedFleet(t), "unchecked", "/")
}

// A reconfiguration adds a location and an app, which is not checked until
// the next cycle, an hour later: the page starts its stream again (the
// config_update), is in sync without a message about that app, and shows
// it as not checked yet; so does a page loaded then.
func TestBrowserReloadAddsApp(t *testing.T) {
	browserTools(t)
	f := gatedFleet(t)
	f.gate.release()
	runScript(t, f, "added", "/")
}

// 10,000 apps in 100 locations: the script prints the first meaningful
// render and the longest main-thread task while 1,000 changes arrive in one
// cycle. These are figures to read, not assertions (see bench/README.md).
func TestBrowserScale(t *testing.T) {
	browserTools(t)
	runScript(t, scaleFleet(t), "scale", "/")
}

// The 90-day bars at 10,000 apps: drawn for the rows on screen only, the
// last app reached by scrolling, a day's outages opened by click and by
// keyboard, axe-core. The script prints the time to the first bars and the
// page's compressed weight.
func TestBrowserBars(t *testing.T) {
	browserTools(t)
	runScript(t, scaleFleet(t), "bars", "/")
}

// The backfill's progress bar, whose server side the stub stands in for,
// and the objectives panel on the monitor's own /api/objectives: the bar
// appears, changes and goes; the panel is hidden while no objective is
// configured, shown and sortable once the control server reconfigures the
// monitor with three.
func TestBrowserBackfillObjectives(t *testing.T) {
	browserTools(t)
	runScript(t, smallFleet(t), "panels", "/status/")
}

// scaleFleet is 10,000 apps in 100 locations, all up.
func scaleFleet(t *testing.T) *fleet {
	var locs []availmon.Location
	for i := range 100 {
		locs = append(locs, availmon.Location{Name: fmt.Sprintf("loc-%03d", i),
			Latitude: -50 + float64(i/10)*11, Longitude: -170 + float64(i%10)*36})
	}
	var apps []appSpec
	for i := range 10000 {
		apps = append(apps, appSpec{name: fmt.Sprintf("app-%05d", i), location: locs[i%100].Name, status: availmon.StatusUp})
	}
	return newFleet(t, locs, apps)
}
