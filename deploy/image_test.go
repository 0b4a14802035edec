//go:build linux

package deploy

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// maxImageBytes is the most the compressed image may weigh: every node that
// starts a pod pulls it, and a limit catches a dependency or a tool that
// slipped into the image.
const maxImageBytes = 20 << 20

// imageConfig is what the tests read of `buildah inspect --type image`.
type imageConfig struct {
	OCIv1 struct {
		Architecture string `json:"architecture"`
		OS           string `json:"os"`
	} `json:"OCIv1"`
	Docker struct {
		Config struct {
			User         string              `json:"User"`
			ExposedPorts map[string]struct{} `json:"ExposedPorts"`
			Env          []string            `json:"Env"`
			Entrypoint   []string            `json:"Entrypoint"`
			Cmd          []string            `json:"Cmd"`
			Volumes      map[string]struct{} `json:"Volumes"`
			Healthcheck  *struct {
				Test []string `json:"Test"`
			} `json:"Healthcheck"`
		} `json:"config"`
	} `json:"Docker"`
}

// The image, built by buildah from the Dockerfile and the release's Linux
// binaries with no base image to pull: for each architecture, its user,
// port, volume, entrypoint and health check are as documented and it
// weighs under 20 MB compressed; for this machine's, the image's
// entrypoint, run from its mounted filesystem as its numeric user with its
// environment, serves /health 200 (podman cannot start containers here,
// see docs/deploy.md).
func TestImage(t *testing.T) {
	buildah := need(t, "buildah", "apt-get install -y buildah")
	if os.Geteuid() != 0 {
		skipOrFail(t, "buildah mount, chroot and a network namespace need root")
	}
	b := release(t)
	var arches []string
	for _, arch := range []string{"amd64", "arm64"} {
		if _, err := os.Stat(b.binary("linux", arch)); err == nil {
			arches = append(arches, arch)
		}
	}
	if !slices.Contains(arches, runtime.GOARCH) {
		t.Fatalf("the release has no binary for linux/%s", runtime.GOARCH)
	}
	for _, arch := range arches {
		t.Run(arch, func(t *testing.T) {
			name := fmt.Sprintf("localhost/availmon-test-%d:%s", os.Getpid(), arch)
			buildImage(t, buildah, b, arch, name)
			img := inspectImage(t, buildah, name)
			checkImageConfig(t, img, arch)
			size := compressedSize(t, buildah, name)
			t.Logf("linux/%s image: %.1f MB compressed", arch, float64(size)/1e6)
			if size > maxImageBytes {
				t.Errorf("compressed image %d bytes, want at most %d", size, maxImageBytes)
			}
			if arch == runtime.GOARCH {
				runImage(t, buildah, name, img)
			}
		})
	}
}

// buildImage builds the Dockerfile in a context of only what it copies:
// the Dockerfile, .dockerignore, deploy/docker/ and the release's binary.
func buildImage(t *testing.T, buildah string, b built, arch, name string) {
	t.Helper()
	ctx := t.TempDir()
	for _, f := range []string{"Dockerfile", ".dockerignore", "deploy/docker/availmon.yaml", "deploy/docker/data/README"} {
		copyFile(t, filepath.Join(srcDir, f), filepath.Join(ctx, f), 0o644)
	}
	copyFile(t, b.binary("linux", arch), filepath.Join(ctx, ".build", "linux-"+arch, "availmon"), 0o755)
	cmd := exec.Command(buildah, "build", "--format", "docker", "--platform", "linux/"+arch,
		"--build-arg", "VERSION="+b.version, "-t", name, ctx)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("buildah build: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command(buildah, "rmi", "-f", name).CombinedOutput(); err != nil {
			t.Logf("buildah rmi %s: %v\n%s", name, err, out)
		}
	})
}

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, mode); err != nil {
		t.Fatal(err)
	}
}

func inspectImage(t *testing.T, buildah, name string) imageConfig {
	t.Helper()
	out, err := exec.Command(buildah, "inspect", "--type", "image", name).Output()
	if err != nil {
		t.Fatalf("buildah inspect: %v", err)
	}
	var img imageConfig
	if err := json.Unmarshal(out, &img); err != nil {
		t.Fatal(err)
	}
	return img
}

// checkImageConfig: a numeric non-root user, port 8080, the /data volume,
// the binary as entrypoint with a listen address reachable from outside
// the container, and the health check.
func checkImageConfig(t *testing.T, img imageConfig, arch string) {
	t.Helper()
	c := img.Docker.Config
	if img.OCIv1.OS != "linux" || img.OCIv1.Architecture != arch {
		t.Errorf("image for %s/%s, want linux/%s", img.OCIv1.OS, img.OCIv1.Architecture, arch)
	}
	if uid, gid := imageUser(t, c.User); uid == 0 || gid == 0 {
		t.Errorf("user %q runs as root", c.User)
	}
	if _, ok := c.ExposedPorts["8080/tcp"]; !ok || len(c.ExposedPorts) != 1 {
		t.Errorf("exposed ports %v, want 8080/tcp", c.ExposedPorts)
	}
	if _, ok := c.Volumes["/data"]; !ok || len(c.Volumes) != 1 {
		t.Errorf("volumes %v, want /data", c.Volumes)
	}
	if !slices.Equal(c.Entrypoint, []string{"/bin/availmon"}) {
		t.Errorf("entrypoint %q, want /bin/availmon", c.Entrypoint)
	}
	for _, want := range []string{"-listen=:8080", "-storage.path=/data", "-config=/etc/availmon/availmon.yaml"} {
		if !slices.Contains(c.Cmd, want) {
			t.Errorf("cmd %q lacks %s", c.Cmd, want)
		}
	}
	if hc := c.Healthcheck; hc == nil || !slices.Equal(hc.Test, []string{"CMD", "/bin/availmon", "healthcheck", "-listen=:8080"}) {
		t.Errorf("health check %+v, want CMD /bin/availmon healthcheck -listen=:8080", hc)
	}
}

// imageUser reads the image's USER, which must be numeric: UID:GID.
func imageUser(t *testing.T, user string) (uid, gid uint32) {
	t.Helper()
	u, g, ok := strings.Cut(user, ":")
	uid64, err1 := strconv.ParseUint(u, 10, 32)
	gid64, err2 := strconv.ParseUint(g, 10, 32)
	if !ok || err1 != nil || err2 != nil {
		t.Fatalf("user %q is not numeric UID:GID", user)
	}
	return uint32(uid64), uint32(gid64)
}

// compressedSize is the size of the image as an OCI archive with its
// layers gzipped, as a registry stores and serves it.
func compressedSize(t *testing.T, buildah, name string) int64 {
	t.Helper()
	archive := filepath.Join(t.TempDir(), "image.tar")
	if out, err := exec.Command(buildah, "push", "--compression-format", "gzip", name, "oci-archive:"+archive).CombinedOutput(); err != nil {
		t.Fatalf("buildah push: %v\n%s", err, out)
	}
	fi, err := os.Stat(archive)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// helperSpec is what TestImageHelperProcess runs inside the mounted image.
type helperSpec struct {
	Root        string   // the image's mounted filesystem
	UID, GID    uint32   // its user
	Env         []string // its environment
	Server      []string // its entrypoint and command
	Healthcheck []string // its health check's command
	Port        string   // its exposed port
	TZCheck     []string // a -check-config of a file with a time zone
}

const helperEnv = "AVAILMON_TEST_IMAGE_HELPER"

// runImage mounts a container of the image and runs the helper process in
// a network namespace of its own, so that the image's port 8080 is free
// whatever else runs on this machine.
func runImage(t *testing.T, buildah, name string, img imageConfig) {
	t.Helper()
	out, err := exec.Command(buildah, "from", "--pull=never", name).Output()
	if err != nil {
		t.Fatalf("buildah from: %v", err)
	}
	ctr := strings.TrimSpace(string(out))
	t.Cleanup(func() { exec.Command(buildah, "rm", ctr).Run() })
	out, err = exec.Command(buildah, "mount", ctr).Output()
	if err != nil {
		t.Fatalf("buildah mount: %v", err)
	}
	root := strings.TrimSpace(string(out))
	checkImageFiles(t, root)
	c := img.Docker.Config
	uid, gid := imageUser(t, c.User)
	tz := "locations: [{name: Here, latitude: 0, longitude: 0}]\napps: [{name: a, location: Here, http: {url: \"http://127.0.0.1:1/\"}}]\n" +
		"maintenance: [{name: nightly, app: a, cron: \"0 3 * * *\", duration: 1h, time_zone: Europe/Berlin}]\n"
	if err := os.WriteFile(filepath.Join(root, "tz-check.yaml"), []byte(tz), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := helperSpec{Root: root, UID: uid, GID: gid, Env: c.Env, Port: "8080",
		Server: append(slices.Clone(c.Entrypoint), c.Cmd...), Healthcheck: c.Healthcheck.Test[1:],
		TZCheck: []string{c.Entrypoint[0], "-config=/tz-check.yaml", "-check-config"}}
	js, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestImageHelperProcess$", "-test.v")
	cmd.Env = append(os.Environ(), helperEnv+"="+string(js))
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNET}
	out, err = cmd.CombinedOutput()
	t.Logf("in the image:\n%s", out)
	if err != nil {
		t.Fatalf("helper: %v", err)
	}
	st, err := os.Stat(filepath.Join(root, "data", "availmon.state"))
	if err != nil {
		t.Fatalf("no state saved in /data: %v", err)
	}
	if s := st.Sys().(*syscall.Stat_t); s.Uid != uid {
		t.Errorf("/data/availmon.state owned by %d, want the image's user %d", s.Uid, uid)
	}
}

// checkImageFiles: the image is the binary, its configuration and the
// state directory owned by the image's user; nothing else, no shell.
func checkImageFiles(t *testing.T, root string) {
	t.Helper()
	var files []string
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			rel, _ := filepath.Rel(root, p)
			files = append(files, "/"+rel)
		}
		return nil
	})
	slices.Sort(files)
	if want := []string{"/bin/availmon", "/data/README", "/etc/availmon/availmon.yaml"}; !slices.Equal(files, want) {
		t.Errorf("image files %q, want %q", files, want)
	}
	fi, err := os.Stat(filepath.Join(root, "data"))
	if err != nil {
		t.Fatal(err)
	}
	if s := fi.Sys().(*syscall.Stat_t); s.Uid == 0 {
		t.Error("/data is owned by root: the image's user cannot keep its state there")
	}
}
