package promsource

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/availmon/availmon"
)

// Calls of one Source run at once, one per batch of a cycle, and share the
// kept buffers of earlier calls: a call must be done with its buffers,
// the summaries its results are ruled from included, before another call
// may take them. Each call here asks a different number of apps, half of
// them down, and every result must be its own app's; under the race
// detector a call reading buffers it gave back is reported.
func TestConcurrentChecksKeepTheirOwnAnswers(t *testing.T) {
	const n = 400
	apps := jobApps(n)
	url, _ := answerServer(t, apps, 0, func(i int) int { return 1 - i%2 })
	src, err := New(Options{Name: "main", URL: url})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		batch := apps[:n/4*(g+1)]
		wg.Go(func() {
			for range 20 {
				res, err := src.Check(context.Background(), batch)
				if err != nil {
					t.Error(err)
					return
				}
				for i, r := range res {
					want := availmon.StatusUp
					if i%2 == 1 {
						want = availmon.StatusDown
					}
					if r.Status != want {
						t.Errorf("app %d of %d is %s, want %s", i, len(batch), r.Status, want)
						return
					}
				}
			}
		})
	}
	wg.Wait()
}

// jobApps is n apps, each the up series of its own job.
func jobApps(n int) []availmon.App {
	apps := make([]availmon.App, n)
	for i := range apps {
		name := fmt.Sprintf("app-%05d", i)
		apps[i] = availmon.App{Name: name, Metric: fmt.Sprintf(`up{job=%q}`, name)}
	}
	return apps
}

// answerServer serves, to every query, an answer with a series of each of
// apps of value value(i), carrying a label of pad bytes when pad > 0; it
// returns the server's URL and the answer's size.
func answerServer(t testing.TB, apps []availmon.App, pad int, value func(i int) int) (string, int) {
	var answer strings.Builder
	answer.WriteString(`{"status":"success","data":{"resultType":"vector","result":[`)
	for i, a := range apps {
		if i > 0 {
			answer.WriteByte(',')
		}
		note := ""
		if pad > 0 {
			note = fmt.Sprintf(`,"note":%q`, strings.Repeat("x", pad))
		}
		fmt.Fprintf(&answer, `{"metric":{"__name__":"up","job":%q%s},"value":[1700000000,"%d"]}`, a.Name, note, value(i))
	}
	answer.WriteString(`]}}`)
	body := []byte(answer.String())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, len(body)
}

// A call keeps its buffers for the next only while its answers are small
// enough that keeping them costs less than their garbage would: a call
// with a larger answer leaves nothing behind.
func TestLargeAnswersBuffersNotKept(t *testing.T) {
	apps := jobApps(2000)
	for _, tc := range []struct {
		pad  int
		kept bool
	}{{pad: 0, kept: true}, {pad: maxKeptAnswer / 2000, kept: false}} {
		url, size := answerServer(t, apps, tc.pad, func(int) int { return 1 })
		src, err := New(Options{Name: "main", URL: url})
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if _, err := src.Check(context.Background(), apps); err != nil {
				t.Fatal(err)
			}
		}
		src.scratch.mu.Lock()
		kept := len(src.scratch.free)
		src.scratch.mu.Unlock()
		if (kept > 0) != tc.kept {
			t.Errorf("after Checks answered in %d bytes, %d calls' buffers kept, want kept: %v", size, kept, tc.kept)
		}
	}
}
