package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
)

// profiler saves the availmon binary's heap profiles and its GC trace for
// one run, when -profile names a directory: the binary then runs with
// -web.enable-pprof and GODEBUG=gctrace=1. The heap profiles hold both
// what is live (inuse_space) and every allocation since the start
// (alloc_space), so two of them taken at two points give what was
// allocated between (go tool pprof -sample_index=alloc_space -diff_base).
type profiler struct {
	dir  string // "" when profiling is off
	apps int
}

// args are the binary's extra flags.
func (p profiler) args() []string {
	if p.dir == "" {
		return nil
	}
	return []string{"-web.enable-pprof"}
}

// env is the binary's environment: this process's, with extra (from -env)
// and the GC trace when profiling.
func (p profiler) env(extra []string) []string {
	if p.dir == "" && len(extra) == 0 {
		return nil
	}
	env := append(os.Environ(), extra...)
	if p.dir != "" {
		// Added to a GODEBUG of -env (memprofilerate=4096, say), which
		// the last GODEBUG would otherwise replace.
		debug := "gctrace=1"
		for _, kv := range extra {
			if v, ok := strings.CutPrefix(kv, "GODEBUG="); ok && v != "" {
				debug += "," + v
			}
		}
		env = append(env, "GODEBUG="+debug)
	}
	return env
}

// heap saves base's heap profile as heap-<apps>-<point>.pb.gz, after a GC
// (gc=1) so that inuse is what is live.
func (p profiler) heap(base, point string) error {
	if p.dir == "" {
		return nil
	}
	res, err := http.Get(base + "/debug/pprof/heap?gc=1")
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("heap profile: %s", res.Status)
	}
	name := filepath.Join(p.dir, fmt.Sprintf("heap-%d-%s.pb.gz", p.apps, point))
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, res.Body); err != nil {
		f.Close()
		return err
	}
	fmt.Println("saved", name)
	if err := f.Close(); err != nil {
		return err
	}
	return p.memStats(base, strings.TrimSuffix(name, ".pb.gz")+".txt")
}

// memStats saves the text form of the heap profile, whose end is the
// runtime's MemStats: where the resident memory that is not live heap goes
// (heap idle and released, spans, GC metadata, stacks).
func (p profiler) memStats(base, name string) error {
	res, err := http.Get(base + "/debug/pprof/heap?debug=1")
	if err != nil {
		return err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return err
	}
	if i := bytes.Index(b, []byte("\n# runtime.MemStats")); i >= 0 {
		b = b[i+1:]
	}
	return os.WriteFile(name, b, 0o644)
}

// keepLog copies the binary's output (with the GC trace) beside the
// profiles.
func (p profiler) keepLog(am *process) error {
	if p.dir == "" {
		return nil
	}
	b, err := os.ReadFile(am.log)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(p.dir, fmt.Sprintf("availmon-%d.log", p.apps)), b, 0o644)
}
