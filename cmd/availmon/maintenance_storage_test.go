package main

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/availmon/availmon/filestore"
)

// A maintenance window added through the API survives the binary being
// killed (once saved) and restarted: same id, same targets and timing, and
// the app is in maintenance again after the restart.
func TestBinaryKeepsAPIMaintenance(t *testing.T) {
	bin := binary(t)
	cfg, dir := openWrites(t, storageConfig(t, "1s")), t.TempDir()
	state := filepath.Join(dir, filestore.FileName)
	p := startStored(t, bin, "-config", cfg, "-storage.path", dir)
	waitFor(t, "a first check of web", 30*time.Second, func() bool {
		return len(getJSON[appAnswer](t, p.base+"/api/apps/web").History) >= 1
	})
	from, to := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339), time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	body := `{"app":"web","from":"` + from + `","to":"` + to + `","comment":"deploy"}`
	resp, err := http.Post(p.base+"/api/maintenance", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated || !strings.Contains(string(b), `"id":"api-1"`) {
		t.Fatalf("POST /api/maintenance = %d %s", resp.StatusCode, b)
	}
	type window struct {
		ID, App, From, To, Comment, Source string
	}
	before := getJSON[[]window](t, p.base+"/api/maintenance")
	added := time.Now()
	waitFor(t, "a save after the window was added", 30*time.Second, func() bool {
		fi, err := os.Stat(state)
		return err == nil && fi.ModTime().After(added)
	})
	p.stop(t, syscall.SIGKILL)

	q := startStored(t, bin, "-config", cfg, "-storage.path", dir)
	after := getJSON[[]window](t, q.base+"/api/maintenance")
	if len(after) != 1 || len(before) != 1 || after[0] != before[0] || after[0].Comment != "deploy" {
		t.Errorf("windows after the restart: %+v, before: %+v", after, before)
	}
	waitFor(t, "web in maintenance after the restart", 30*time.Second, func() bool {
		return getJSON[struct {
			Maintenance bool `json:"maintenance"`
		}](t, q.base+"/api/apps/web").Maintenance
	})
	if !strings.Contains(q.log.String(), "restored the maintenance windows") {
		t.Errorf("the log does not say the windows were restored:\n%s", q.log.String())
	}
}
