//go:build linux

package deploy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestImageHelperProcess is not a test: TestImage runs the test binary
// again with helperEnv set, in a network namespace of its own, and this
// runs the image's entrypoint there, chrooted into the mounted image as
// the image's user with the image's environment, as a container runtime
// would (without the runtime's cgroups and seccomp).
func TestImageHelperProcess(t *testing.T) {
	js := os.Getenv(helperEnv)
	if js == "" {
		return
	}
	var spec helperSpec
	if err := json.Unmarshal([]byte(js), &spec); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("ip", "link", "set", "lo", "up").CombinedOutput(); err != nil {
		t.Fatalf("ip link set lo up (iproute2): %v\n%s", err, out)
	}
	var log bytes.Buffer
	server := inImage(spec, spec.Server)
	server.Stdout, server.Stderr = &log, &log
	if err := server.Start(); err != nil {
		t.Fatalf("start %q in the image: %v", spec.Server, err)
	}
	defer server.Process.Kill()
	base := "http://127.0.0.1:" + spec.Port
	status := func(path string) (int, string) {
		resp, err := http.Get(base + path)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if !poll(func() bool { code, _ := status("/health"); return code == http.StatusOK }) {
		code, body := status("/health")
		t.Fatalf("GET /health: %d %s; log:\n%s", code, body, log.String())
	}
	fmt.Printf("GET /health on port %s: 200\n", spec.Port)
	for name, argv := range map[string][]string{"health check": spec.Healthcheck, "time zone check": spec.TZCheck} {
		out, err := inImage(spec, argv).CombinedOutput()
		if err != nil {
			t.Errorf("%s %q: %v\n%s", name, argv, err, out)
		}
		fmt.Printf("%s %q: %s", name, argv, out)
	}
	// The default configuration probes availmon itself: an HTTP probe from
	// inside the image.
	if !poll(func() bool { _, body := status("/api/apps"); return strings.Contains(body, `"status":"up"`) }) {
		_, body := status("/api/apps")
		t.Errorf("/api/apps never shows the image's own app up: %s", body)
	}
	server.Process.Signal(syscall.SIGTERM)
	if err := server.Wait(); err != nil {
		t.Errorf("after SIGTERM: %v", err)
	}
	fmt.Printf("log of the image's entrypoint:\n%s", log.String())
}

// inImage is argv run in the image's filesystem as its user, with its
// environment and nothing else.
func inImage(spec helperSpec, argv []string) *exec.Cmd {
	return &exec.Cmd{
		Path: argv[0],
		Args: argv,
		Env:  spec.Env,
		Dir:  "/",
		SysProcAttr: &syscall.SysProcAttr{
			Chroot:     spec.Root,
			Credential: &syscall.Credential{Uid: spec.UID, Gid: spec.GID, Groups: []uint32{}},
		},
	}
}

// poll reports whether cond holds within 30 seconds, asking every 50 ms.
func poll(cond func() bool) bool {
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return false
}
