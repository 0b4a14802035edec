package main

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// File names in dist/.
const (
	rulesName     = "availmon-rules.yml"
	checksumsName = "SHA256SUMS"
)

// archived is one file of an archive: its name inside the archive's
// top directory, its mode, and where its bytes come from.
type archived struct {
	name string
	mode int64
	path string // a file to copy; empty for body
	body []byte
}

// contents is what each archive holds beside the binary: the rules to load
// into Prometheus, a configuration to start from, the README, and on Linux
// the systemd unit.
func contents(o options, p platform, rules []byte) []archived {
	files := []archived{
		{name: p.exe(), mode: 0o755, path: o.binaryPath(p)},
		{name: rulesName, mode: 0o644, body: rules},
		{name: "availmon.yaml", mode: 0o644, path: filepath.Join(o.src, "examples", "availmon.yaml")},
		{name: "README.md", mode: 0o644, path: filepath.Join(o.src, "README.md")},
	}
	if p.os == "linux" {
		files = append(files, archived{name: "availmon.service", mode: 0o644,
			path: filepath.Join(o.src, "deploy", "systemd", "availmon.service")})
	}
	return files
}

// writeArchive writes availmon-VERSION.OS-ARCH.tar.gz (a .zip for
// Windows) into dist and returns its name. Its entries sit in a directory
// of the same name, as Prometheus's releases do.
func writeArchive(o options, p platform, rules []byte) (string, error) {
	base := fmt.Sprintf("availmon-%s.%s", o.version, p.dir())
	name := base + ".tar.gz"
	write := writeTarGz
	if p.os == "windows" {
		name, write = base+".zip", writeZip
	}
	f, err := os.Create(filepath.Join(o.dist, name))
	if err != nil {
		return "", err
	}
	err = write(f, base, contents(o, p, rules), o.modTime)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	return name, nil
}

func (a archived) bytes() ([]byte, error) {
	if a.path == "" {
		return a.body, nil
	}
	return os.ReadFile(a.path)
}

func writeTarGz(w io.Writer, dir string, files []archived, modTime time.Time) error {
	gz := gzip.NewWriter(w)
	tw := tar.NewWriter(gz)
	if err := tw.WriteHeader(&tar.Header{Name: dir + "/", Typeflag: tar.TypeDir, Mode: 0o755, ModTime: modTime}); err != nil {
		return err
	}
	for _, a := range files {
		b, err := a.bytes()
		if err != nil {
			return err
		}
		hdr := &tar.Header{Name: dir + "/" + a.name, Typeflag: tar.TypeReg, Mode: a.mode, Size: int64(len(b)), ModTime: modTime}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if _, err := tw.Write(b); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

func writeZip(w io.Writer, dir string, files []archived, modTime time.Time) error {
	zw := zip.NewWriter(w)
	for _, a := range files {
		b, err := a.bytes()
		if err != nil {
			return err
		}
		hdr := &zip.FileHeader{Name: dir + "/" + a.name, Method: zip.Deflate, Modified: modTime}
		hdr.SetMode(os.FileMode(a.mode))
		fw, err := zw.CreateHeader(hdr)
		if err != nil {
			return err
		}
		if _, err := fw.Write(b); err != nil {
			return err
		}
	}
	return zw.Close()
}

// writeChecksums writes SHA256SUMS over names in dir, in the format of
// sha256sum, so that `sha256sum -c SHA256SUMS` checks a download.
func writeChecksums(dir string, names []string) error {
	names = slices.Sorted(slices.Values(names))
	var b strings.Builder
	for _, n := range names {
		f, err := os.Open(filepath.Join(dir, n))
		if err != nil {
			return err
		}
		h := sha256.New()
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(h.Sum(nil)), n)
	}
	return os.WriteFile(filepath.Join(dir, checksumsName), []byte(b.String()), 0o644)
}
