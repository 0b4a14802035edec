package availmon

import "strings"

// originPatterns is how the /api/ws origin check reads the configured host
// patterns: a pattern without a port matches the host on any port, because
// a page's origin carries its port ("http://localhost:5555" has the host
// "localhost:5555") and "localhost" is what a user means by it. A pattern
// with a port ("localhost:5555", "*.example.com:443") matches that port
// only.
func originPatterns(patterns []string) []string {
	out := make([]string, 0, 2*len(patterns))
	for _, p := range patterns {
		out = append(out, p)
		if strings.LastIndexByte(p, ':') <= strings.LastIndexByte(p, ']') { // no port; "]" ends an IPv6 address
			out = append(out, p+":*")
		}
	}
	return out
}
