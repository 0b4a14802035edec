package promtest

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// FaultProxy is a reverse proxy on loopback in front of a real backend
// (a Prometheus started by Start, or any server speaking its API) that a
// test switches between passing requests on and answering them with a
// Fault: a wrong result type, an error envelope, a huge body, a hang.
//
//	srv := promtest.Start(t, promtest.Job("demo", exp.Target()))
//	proxy := promtest.NewFaultProxy(t, srv.URL())
//	// point the code under test at proxy.URL()
//	proxy.Inject(promtest.Rule{Fault: promtest.Matrix(), For: 2500 * time.Millisecond})
//
// Its methods are safe for concurrent use.
type FaultProxy struct {
	srv   *httptest.Server
	proxy *httputil.ReverseProxy
	done  chan struct{} // closed when the test ends: hanging answers return

	requests atomic.Int64 // every request received
	faulted  atomic.Int64 // requests answered by a fault
	sent     atomic.Int64 // body bytes written by faults

	mu   sync.Mutex
	rule *activeRule
}

// A Fault answers a request in place of the backend. It must return when
// the request's context or done ends.
type Fault struct {
	name  string
	serve func(w http.ResponseWriter, r *http.Request, done <-chan struct{}, sent *atomic.Int64)
}

// String names the fault, for test logs.
func (f Fault) String() string { return f.name }

// Rule says which requests a fault answers, and for how long.
type Rule struct {
	Fault Fault
	// For limits the rule to a duration from Inject; zero means until
	// Clear or the next Inject.
	For time.Duration
	// Count limits the rule to that many faulted requests; zero means no
	// limit.
	Count int
	// Match picks the requests to fault (see QueryContains); nil matches
	// every request to the endpoint.
	Match func(query string) bool
	// Range faults range queries (/api/v1/query_range, which a backfill
	// sends) instead of instant ones (/api/v1/query).
	Range bool
}

type activeRule struct {
	Rule
	until time.Time // zero: no end
	left  int       // remaining faults when Count > 0
}

// NewFaultProxy starts a proxy to target (a base URL such as
// http://127.0.0.1:9090) on 127.0.0.1, passing everything through until a
// rule is injected. It is closed when the test ends.
func NewFaultProxy(tb testing.TB, target string) *FaultProxy {
	tb.Helper()
	u, err := url.Parse(target)
	if err != nil {
		tb.Fatalf("promtest: fault proxy target %q: %v", target, err)
	}
	p := &FaultProxy{proxy: httputil.NewSingleHostReverseProxy(u), done: make(chan struct{})}
	// A transport of its own, not http.DefaultTransport shared with the
	// rest of the test process.
	tr := http.DefaultTransport.(*http.Transport).Clone()
	p.proxy.Transport = tr
	// Errors reaching the backend are the test's business: answer 502
	// without writing to the process's standard log.
	p.proxy.ErrorHandler = func(w http.ResponseWriter, _ *http.Request, err error) {
		http.Error(w, "promtest proxy: "+err.Error(), http.StatusBadGateway)
	}
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	tb.Cleanup(func() {
		close(p.done) // hanging and trickling faults return first
		p.srv.CloseClientConnections()
		p.srv.Close()
		tr.CloseIdleConnections()
	})
	return p
}

// URL is the proxy's base URL, to use in place of the backend's.
func (p *FaultProxy) URL() string { return p.srv.URL }

// Requests is how many requests the proxy has received, faulted or not.
func (p *FaultProxy) Requests() int64 { return p.requests.Load() }

// Faulted is how many requests a fault answered.
func (p *FaultProxy) Faulted() int64 { return p.faulted.Load() }

// BytesSent is how many body bytes faults have written so far (for
// HugeVector: how much the client read before it hung up, plus what the
// kernel's buffers took).
func (p *FaultProxy) BytesSent() int64 { return p.sent.Load() }

// Inject makes r the proxy's rule, replacing any other.
func (p *FaultProxy) Inject(r Rule) {
	a := &activeRule{Rule: r, left: r.Count}
	if r.For > 0 {
		a.until = time.Now().Add(r.For)
	}
	p.mu.Lock()
	p.rule = a
	p.mu.Unlock()
}

// Clear ends the rule: requests pass through again.
func (p *FaultProxy) Clear() {
	p.mu.Lock()
	p.rule = nil
	p.mu.Unlock()
}

// QueryContains matches queries whose expression contains s.
func QueryContains(s string) func(string) bool {
	return func(q string) bool { return strings.Contains(q, s) }
}

// maxQueryRead bounds what the proxy reads of a request body to match it.
const maxQueryRead = 16 << 20

func (p *FaultProxy) serve(w http.ResponseWriter, r *http.Request) {
	p.requests.Add(1)
	// The request body is read in full first: the server may close an
	// unread request body once the answer's header is written, and a
	// backend that answers the moment the last byte arrives
	// (VictoriaMetrics) would then race the proxy's transport still
	// reading it, cutting the answer short.
	bufferBody(r)
	if f, ok := p.faultFor(r); ok {
		p.faulted.Add(1)
		f.serve(w, r, p.done, &p.sent)
		return
	}
	p.proxy.ServeHTTP(w, r)
}

// faultFor decides whether r is faulted, and counts it against the rule.
func (p *FaultProxy) faultFor(r *http.Request) (Fault, bool) {
	p.mu.Lock()
	a := p.rule
	p.mu.Unlock()
	if a == nil {
		return Fault{}, false
	}
	endpoint := "/api/v1/query"
	if a.Range {
		endpoint = "/api/v1/query_range"
	}
	if !strings.HasSuffix(r.URL.Path, endpoint) {
		return Fault{}, false
	}
	if a.Match != nil && !a.Match(queryOf(r)) {
		return Fault{}, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.rule != a {
		return Fault{}, false // replaced meanwhile
	}
	if !a.until.IsZero() && time.Now().After(a.until) {
		p.rule = nil
		return Fault{}, false
	}
	if a.Count > 0 {
		if a.left == 0 {
			p.rule = nil
			return Fault{}, false
		}
		a.left--
	}
	return a.Fault, true
}

// bufferBody replaces r's body by a copy in memory.
func bufferBody(r *http.Request) {
	if r.Body == nil || r.Body == http.NoBody {
		return
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, maxQueryRead))
	r.Body.Close()
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
}

// queryOf reads the query parameter from the URL or the form body (which
// serve buffered), and puts the body back for the backend.
func queryOf(r *http.Request) string {
	if q := r.URL.Query().Get("query"); q != "" {
		return q
	}
	if r.Body == nil || r.Body == http.NoBody {
		return ""
	}
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	form, err := url.ParseQuery(string(body))
	if err != nil {
		return ""
	}
	return form.Get("query")
}

// fixed answers with status and body.
func fixed(name string, status int, body string) Fault {
	return Fault{name: name, serve: func(w http.ResponseWriter, _ *http.Request, _ <-chan struct{}, sent *atomic.Int64) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		n, _ := io.WriteString(w, body)
		sent.Add(int64(n))
	}}
}

// Answer answers 200 with body, for answers a sound server would not send
// in that shape (keys in another order or case, a null sample, a cut body).
func Answer(name, body string) Fault { return fixed(name, http.StatusOK, body) }

// Matrix answers a successful, empty range-vector result: what a query
// for an instant vector never gets from a sound backend.
func Matrix() Fault {
	return fixed("matrix", http.StatusOK, `{"status":"success","data":{"resultType":"matrix","result":[]}}`)
}

// Scalar answers a successful scalar result of 1.
func Scalar() Fault {
	return fixed("scalar", http.StatusOK,
		fmt.Sprintf(`{"status":"success","data":{"resultType":"scalar","result":[%d,"1"]}}`, time.Now().Unix()))
}

// Execution answers 422 with errorType "execution", as Prometheus, Thanos
// and Mimir do when evaluation fails (Mimir also for storage failures).
func Execution(msg string) Fault {
	return fixed("422 execution", http.StatusUnprocessableEntity, errorBody("execution", msg))
}

// VictoriaMetrics422 answers 422 with errorType "422", as VictoriaMetrics
// does for a query it cannot parse or evaluate, quoting the whole query
// in the message as it does.
func VictoriaMetrics422(msg string) Fault {
	return Fault{name: "422 victoriametrics", serve: func(w http.ResponseWriter, r *http.Request, _ <-chan struct{}, sent *atomic.Int64) {
		text := fmt.Sprintf("error when executing query=%q for (time=%d, step=300000): %s",
			queryOf(r), time.Now().UnixMilli(), msg)
		fixed("", http.StatusUnprocessableEntity, errorBody("422", text)).serve(w, r, nil, sent)
	}}
}

// BadData answers 400 with errorType "bad_data", as Prometheus does for an
// expression that does not parse.
func BadData(msg string) Fault {
	return fixed("400 bad_data", http.StatusBadRequest, errorBody("bad_data", msg))
}

// Status answers status with a plain-text body, as a load balancer or
// gateway in front of the backend would (502, 503, 504...).
func Status(status int) Fault {
	return Fault{name: strconv.Itoa(status), serve: func(w http.ResponseWriter, _ *http.Request, _ <-chan struct{}, sent *atomic.Int64) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(status)
		n, _ := io.WriteString(w, http.StatusText(status)+"\n")
		sent.Add(int64(n))
	}}
}

func errorBody(errorType, msg string) string {
	return fmt.Sprintf(`{"status":"error","errorType":%q,"error":%q}`, errorType, msg)
}

// Hang accepts the request and never answers, until the client gives up
// or the test ends.
func Hang() Fault {
	return Fault{name: "hang", serve: func(_ http.ResponseWriter, r *http.Request, done <-chan struct{}, _ *atomic.Int64) {
		select {
		case <-r.Context().Done():
		case <-done:
		}
	}}
}

// Trickle answers 200 with the start of a vector result, then one byte
// every interval, never finishing, until the client gives up or the test
// ends.
func Trickle(every time.Duration) Fault {
	return Fault{name: "trickle", serve: func(w http.ResponseWriter, r *http.Request, done <-chan struct{}, sent *atomic.Int64) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		head := `{"status":"success","data":{"resultType":"vector","result":[`
		n, _ := io.WriteString(w, head)
		sent.Add(int64(n))
		flush(w)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-r.Context().Done():
				return
			case <-done:
				return
			case <-tick.C:
			}
			if _, err := io.WriteString(w, " "); err != nil {
				return
			}
			sent.Add(1)
			flush(w)
		}
	}}
}

func flush(w http.ResponseWriter) {
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// HugeVector answers a valid vector result of about size bytes, streamed
// in chunks made once (the proxy never holds the whole body), each sample
// labelled availmon_app="0". Writing stops when the client hangs up.
func HugeVector(size int64) Fault {
	return Fault{name: fmt.Sprintf("huge vector (%d bytes)", size), serve: func(w http.ResponseWriter, r *http.Request, done <-chan struct{}, sent *atomic.Int64) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		ts := time.Now().Unix()
		const head = `{"status":"success","data":{"resultType":"vector","result":[`
		const tail = `]}}`
		sample := fmt.Sprintf(`{"metric":{"availmon_app":"0","pad":"%s"},"value":[%d,"1"]}`, strings.Repeat("x", 200), ts)
		var chunk bytes.Buffer
		for chunk.Len() < 64<<10 {
			chunk.WriteString(sample)
			chunk.WriteByte(',')
		}
		write := func(b []byte) bool {
			if r.Context().Err() != nil || isDone(done) {
				return false
			}
			n, err := w.Write(b)
			sent.Add(int64(n))
			return err == nil
		}
		if !write([]byte(head)) {
			return
		}
		written := int64(len(head))
		for written+int64(chunk.Len()) < size {
			if !write(chunk.Bytes()) {
				return
			}
			written += int64(chunk.Len())
		}
		write([]byte(sample + tail))
	}}
}

func isDone(done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	default:
		return false
	}
}
