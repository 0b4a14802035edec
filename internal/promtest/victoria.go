package promtest

import (
	"path/filepath"
	"testing"
)

// VictoriaMetricsBinary is the name of the single-node VictoriaMetrics
// executable (the Debian package `victoria-metrics`) looked up in PATH.
const VictoriaMetricsBinary = "victoria-metrics"

// VictoriaMetricsLatencyOffset is what StartVictoriaMetrics passes as
// -search.latencyOffset. VictoriaMetrics hides samples younger than that
// from queries (30s by default, so that a scrape still being written is not
// read half-way); a test that changes an exporter and waits for the change
// would wait 30 s. One scrape interval is enough on loopback.
const VictoriaMetricsLatencyOffset = ScrapeInterval

// StartVictoriaMetrics starts a single-node VictoriaMetrics that scrapes the
// given jobs every ScrapeInterval with its built-in scraper, and waits until
// it is ready. The returned Server answers the Prometheus query API, and
// Stop, Restart, Pause, Resume, WaitForQuery and CPUTime work as for
// Prometheus. Without the binary the test is skipped, unless CI is set.
//
// Its response cache is off, so every query reads what was scraped; queries
// longer than -search.maxQueryLen (16 KiB by default) are refused, as by a
// VictoriaMetrics that runs with its defaults.
func StartVictoriaMetrics(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	bin := lookBinary(tb, VictoriaMetricsBinary, "victoria-metrics")
	var c config
	for _, o := range opts {
		o(&c)
	}
	s := &Server{tb: tb, bin: bin, dir: tb.TempDir(), kind: "victoria-metrics", readyPath: "/health",
		flagsPath: "/flags"}
	s.args = func() []string {
		return []string{
			"-promscrape.config=" + s.cfgFile,
			"-storageDataPath=" + filepath.Join(s.dir, "data"),
			"-httpListenAddr=" + s.addr,
			"-retentionPeriod=1d",
			"-search.latencyOffset=" + VictoriaMetricsLatencyOffset.String(),
			"-search.disableCache",
			"-promscrape.config.strictParse=false", // it has no evaluation_interval
			"-loggerLevel=WARN",
		}
	}
	s.start(c)
	return s
}
