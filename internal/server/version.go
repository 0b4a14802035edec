package server

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// VersionText is the binary's -version output: version, as linked in, and
// what the Go toolchain recorded about the build.
func VersionText(version string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "availmon %s", version)
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return b.String()
	}
	fmt.Fprintf(&b, " (%s", info.GoVersion)
	if v := info.Main.Version; v != "" && v != "(devel)" {
		fmt.Fprintf(&b, ", module %s", v)
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision", "vcs.time", "vcs.modified":
			fmt.Fprintf(&b, ", %s=%s", s.Key, s.Value)
		}
	}
	b.WriteString(")")
	return b.String()
}
