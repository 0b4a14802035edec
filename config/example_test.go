package config_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/config"
)

// A Go service that embeds availmon reads the binary's configuration file
// and mounts the monitor's API under a prefix of its own mux.
func Example() {
	// The app the file probes, at ${CHECKOUT_URL}.
	checkout := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer checkout.Close()
	lookup := func(name string) (string, bool) {
		if name == "CHECKOUT_URL" {
			return checkout.URL, true
		}
		return os.LookupEnv(name)
	}

	cfg, err := config.Load("testdata/availmon.yaml", lookup)
	if err != nil {
		log.Fatal(err) // every problem of the file, each "file:line: message"
	}
	opts, err := cfg.Options(nil) // the caller adds Logger, Registerer, Clock
	if err != nil {
		log.Fatal(err)
	}
	m, err := availmon.New(opts)
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/availability/", http.StripPrefix("/availability", m.Handler()))
	// A service runs go m.Run(ctx); one cycle on demand is enough here.
	if err := m.Scrape(context.Background()); err != nil {
		log.Fatal(err)
	}

	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/availability/api/apps/checkout", nil))
	var app struct {
		Data struct{ Name, Status string }
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &app); err != nil {
		log.Fatal(err)
	}
	fmt.Println(cfg.Summary())
	fmt.Println(app.Data.Name, app.Data.Status)
	// Output:
	// 1 app (1 HTTP probe), 1 location, 0 Prometheus backends
	// checkout up
}

// Reload reads the file again and applies it to the running monitor; a
// file that does not load changes nothing.
func ExampleReloader_Reload() {
	dir, err := os.MkdirTemp("", "availmon")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "availmon.yaml")
	write := func(apps string) {
		file := "locations: [{name: Tel Aviv, latitude: 32.0853, longitude: 34.7818}]\napps:\n" + apps
		if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
			log.Fatal(err)
		}
	}
	write("  - {name: checkout, location: Tel Aviv, http: {url: 'http://127.0.0.1:9/'}}\n")
	cfg, err := config.Load(path, os.LookupEnv)
	if err != nil {
		log.Fatal(err)
	}
	opts, err := cfg.Options(nil)
	if err != nil {
		log.Fatal(err)
	}
	m, err := availmon.New(opts)
	if err != nil {
		log.Fatal(err)
	}
	r, err := config.NewReloader(m, config.ReloaderOptions{Path: path, Running: cfg})
	if err != nil {
		log.Fatal(err)
	}

	write("  - {name: checkout, location: Tel Aviv, http: {url: 'http://127.0.0.1:9/'}}\n" +
		"  - {name: search, location: Tel Aviv, http: {url: 'http://127.0.0.1:9/search'}}\n")
	ch, err := r.Reload(context.Background())
	fmt.Println(ch.Apps, ch.AppsAdded, err)

	write("  - {name: search, location: Nowhere, http: {url: 'http://127.0.0.1:9/search'}}\n")
	_, err = r.Reload(context.Background())
	var problem *config.Error // err joins one per problem
	if errors.As(err, &problem) {
		fmt.Printf("line %d: %s\n", problem.Line, problem.Msg)
	}
	// Output:
	// 2 [search] <nil>
	// line 3: app "search": unknown location "Nowhere" (locations: Tel Aviv)
}

// The binary reloads its file on SIGHUP; a service that embeds availmon
// can do the same, and serve POST /-/reload with Options.Reload.
func ExampleReloader_sighup() {
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	cfg, err := config.Load("availmon.yaml", os.LookupEnv)
	if err != nil {
		log.Fatal(err)
	}
	opts, err := cfg.Options(logger)
	if err != nil {
		log.Fatal(err)
	}
	m, err := availmon.New(opts)
	if err != nil {
		log.Fatal(err)
	}
	r, err := config.NewReloader(m, config.ReloaderOptions{Path: "availmon.yaml", Running: cfg, Logger: logger})
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-hup:
				// Logged, and counted in availmon_config_last_reload_successful
				// when ReloaderOptions.Registerer is set.
				r.Reload(ctx) //nolint:errcheck
			}
		}
	}()
	if err := m.Run(ctx); err != nil {
		log.Fatal(err)
	}
}
