package main

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/availmon/availmon/hmac"
)

// A reload that changes storage.* applies nothing of it (the store is
// opened once) and says so: restart_needed names each changed key, and a
// warning is logged for each. storage.path given by -storage.path is the
// flag's, so changing it in the file alone needs no restart.
func TestReloadStorageNeedsRestart(t *testing.T) {
	const secret = "0123456789abcdef0123456789abcdef-test"
	lookup := func(k string) (string, bool) { return secret, k == "SECRET" }
	auth := "authentication:\n  hmac:\n    enabled: true\n    secret: ${SECRET}\n"
	// Each run its own store: a store keeps the replay cache, and the
	// signed requests of two runs within a second are alike.
	dirB := t.TempDir()
	storage := func(dir, every string, backfill bool) string {
		return "storage:\n  path: " + dir + "\n  save_interval: " + every + "\n  backfill: " + map[bool]string{true: "true", false: "false"}[backfill] + "\n"
	}
	tests := []struct {
		name  string
		flag  bool
		after func(dirA string) string
		want  []string
	}{
		{"path from the file", false, func(string) string { return storage(dirB, "2m", true) }, []string{"storage.path", "storage.save_interval"}},
		{"path from the flag", true, func(string) string { return storage(dirB, "1m", false) }, []string{"storage.backfill"}},
		{"nothing changed", false, func(dirA string) string { return storage(dirA, "1m", true) }, []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dirA := t.TempDir()
			var flags []string
			if tc.flag {
				flags = []string{"-storage.path", t.TempDir()}
			}
			path := writeConfig(t, auth+storage(dirA, "1m", true))
			p := startReloadable(t, path, lookup, flags...)
			defer p.stop(t)
			if b, ok := strings.CutSuffix(readFile(t, path), storage(dirA, "1m", true)); ok {
				writeFile(t, path, b+tc.after(dirA))
			} else {
				t.Fatal("the storage section is not at the end of the file")
			}
			code, body := postSigned(t, p.base+"/-/reload", secret)
			var resp struct {
				Data struct {
					RestartNeeded []string `json:"restart_needed"`
				}
			}
			if err := json.Unmarshal([]byte(body), &resp); err != nil || code != http.StatusOK {
				t.Fatalf("POST /-/reload = %d %s", code, body)
			}
			if !cmp.Equal(tc.want, resp.Data.RestartNeeded) {
				t.Errorf("restart_needed: (-want +got):\n%s", cmp.Diff(tc.want, resp.Data.RestartNeeded))
			}
			for _, s := range tc.want {
				w := `setting=` + s
				waitFor(t, "the warning for "+s, 10*time.Second, func() bool { return strings.Contains(p.log.String(), w) })
			}
			if strings.Contains(p.log.String(), "path="+dirB) {
				t.Errorf("the store moved on reload:\n%s", p.log.String())
			}
		})
	}
}

// startReloadable runs the server in process with -web.enable-reload.
func startReloadable(t *testing.T, cfg string, lookup func(string) (string, bool), flags ...string) *inProcess {
	t.Helper()
	return runInProcess(t, lookup, append([]string{"-config", cfg, "-listen", "127.0.0.1:0", "-web.enable-reload"}, flags...)...)
}

func postSigned(t *testing.T, url, secret string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := (&http.Client{Transport: &hmac.Transport{Secret: []byte(secret)}}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}
