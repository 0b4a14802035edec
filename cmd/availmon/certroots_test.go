package main

import (
	"crypto/x509"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// certPoolChild names the environment variable under which the test binary,
// run again by TestFallbackRoots, prints how many roots it trusts.
const certPoolChild = "AVAILMON_TEST_CERTPOOL_CHILD"

// With no CA bundle on the machine (SSL_CERT_FILE and SSL_CERT_DIR point at
// nothing, as in a scratch image), the binary still trusts the public roots.
// The system pool is read once per process, so a child process reads it.
func TestFallbackRoots(t *testing.T) {
	if os.Getenv(certPoolChild) != "" {
		pool, err := x509.SystemCertPool()
		if err != nil {
			fmt.Println("roots: error", err)
			return
		}
		fmt.Println("roots:", len(pool.Subjects())) //nolint:staticcheck // counting is all that is asked
		return
	}
	empty := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestFallbackRoots$")
	cmd.Env = append(os.Environ(), certPoolChild+"=1", "SSL_CERT_FILE="+empty+"/none.pem", "SSL_CERT_DIR="+empty)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	_, after, ok := strings.Cut(string(out), "roots: ")
	n, convErr := strconv.Atoi(strings.Fields(after + " x")[0])
	if !ok || convErr != nil {
		t.Fatalf("child printed no count:\n%s", out)
	}
	if n < 100 {
		t.Errorf("with no CA bundle the binary trusts %d roots, want the public ones (over 100)", n)
	}
}
