package deploy

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The release: SHA256SUMS matches every file it names; each archive holds
// the binary, the rules, a configuration and the README (and the unit on
// Linux); each binary is static, for its platform, with the version
// stamped; the rules file is what `availmon rules` prints. Under CI the
// release is the one CI built for every platform.
func TestRelease(t *testing.T) {
	b := release(t)
	sums := readChecksums(t, filepath.Join(b.dist, "SHA256SUMS"))
	var platforms []string
	for name := range sums {
		if _, p, ok := archiveName(name); ok {
			platforms = append(platforms, p)
			checkArchive(t, b, name, p)
		}
	}
	slices.Sort(platforms)
	t.Logf("release %s: %s", b.version, strings.Join(platforms, ", "))
	if os.Getenv(releaseDirEnv) != "" {
		want := []string{"darwin-amd64", "darwin-arm64", "linux-amd64", "linux-arm64", "windows-amd64"}
		if !slices.Equal(platforms, want) {
			t.Errorf("platforms %v, want %v", platforms, want)
		}
	}
	out, err := exec.Command(b.native(), "-version").Output()
	if err != nil || !strings.HasPrefix(string(out), "availmon "+b.version+" ") {
		t.Errorf("availmon -version: %q, %v; want the version %s", out, err, b.version)
	}
	rules, err := exec.Command(b.native(), "rules").Output()
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(b.dist, "availmon-rules.yml")); !bytes.Equal(got, rules) {
		t.Error("dist/availmon-rules.yml is not what `availmon rules` prints")
	}
	if _, ok := sums["availmon-rules.yml"]; !ok {
		t.Error("SHA256SUMS does not cover availmon-rules.yml")
	}
}

// readChecksums reads SHA256SUMS and checks each file it names.
func readChecksums(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sums := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("SHA256SUMS line %q is not \"SUM  NAME\"", sc.Text())
		}
		b, err := os.ReadFile(filepath.Join(filepath.Dir(path), name))
		if err != nil {
			t.Fatal(err)
		}
		if got := sha256.Sum256(b); hex.EncodeToString(got[:]) != sum {
			t.Errorf("%s: sha256 %x, SHA256SUMS says %s", name, got, sum)
		}
		sums[name] = sum
	}
	if len(sums) < 2 {
		t.Fatalf("SHA256SUMS names %d files, want the rules and an archive at least", len(sums))
	}
	return sums
}

// checkArchive checks one archive's files and its binary's platform.
func checkArchive(t *testing.T, b built, name, platform string) {
	t.Helper()
	files := readArchive(t, filepath.Join(b.dist, name))
	dir := strings.TrimSuffix(strings.TrimSuffix(name, ".tar.gz"), ".zip") + "/"
	goos, goarch, _ := strings.Cut(platform, "-")
	exe := "availmon"
	if goos == "windows" {
		exe += ".exe"
	}
	want := []string{exe, "README.md", "availmon-rules.yml", "availmon.yaml"}
	if goos == "linux" {
		want = append(want, "availmon.service")
	}
	var got []string
	for n := range files {
		got = append(got, strings.TrimPrefix(n, dir))
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("%s holds %v, want %v in %s", name, got, want, dir)
	}
	if bin, err := os.ReadFile(b.binary(goos, goarch)); err != nil || !bytes.Equal(bin, files[dir+exe]) {
		t.Errorf("%s: its binary is not the one built (%v)", name, err)
	}
	checkBinary(t, name, goos, goarch, files[dir+exe])
}

// readArchive returns the regular files of a .tar.gz or .zip by name.
func readArchive(t *testing.T, path string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	if strings.HasSuffix(path, ".zip") {
		zr, err := zip.OpenReader(path)
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		for _, f := range zr.File {
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			files[f.Name], err = io.ReadAll(rc)
			rc.Close()
			if err != nil {
				t.Fatal(err)
			}
		}
		return files
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return files
		}
		if err != nil {
			t.Fatal(err)
		}
		if hdr.Typeflag == tar.TypeReg {
			if files[hdr.Name], err = io.ReadAll(tr); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// checkBinary checks that bin is an executable for goos/goarch, and on
// Linux a static one (no interpreter, no shared libraries), so that it
// runs on a scratch image.
func checkBinary(t *testing.T, name, goos, goarch string, bin []byte) {
	t.Helper()
	r := bytes.NewReader(bin)
	switch goos {
	case "linux":
		f, err := elf.NewFile(r)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if want := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[goarch]; f.Machine != want {
			t.Errorf("%s: ELF machine %v, want %v", name, f.Machine, want)
		}
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
				t.Errorf("%s: dynamically linked (%v)", name, p.Type)
			}
		}
	case "darwin":
		f, err := macho.NewFile(r)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if want := map[string]macho.Cpu{"amd64": macho.CpuAmd64, "arm64": macho.CpuArm64}[goarch]; f.Cpu != want {
			t.Errorf("%s: Mach-O CPU %v, want %v", name, f.Cpu, want)
		}
	case "windows":
		f, err := pe.NewFile(r)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if want := map[string]uint16{"amd64": pe.IMAGE_FILE_MACHINE_AMD64, "arm64": pe.IMAGE_FILE_MACHINE_ARM64}[goarch]; f.Machine != want {
			t.Errorf("%s: PE machine %#x, want %#x", name, f.Machine, want)
		}
	default:
		t.Errorf("%s: no check for %s", name, goos)
	}
}
