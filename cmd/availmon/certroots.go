package main

// HTTP probes and Prometheus backends over HTTPS must verify certificates
// on machines without a CA bundle, such as scratch and distroless images.
// The fallback roots (Mozilla's, as Go's own tooling ships them) are used
// only where the system has none: a host's own bundle, or SSL_CERT_FILE,
// still wins.
import _ "golang.org/x/crypto/x509roots/fallback"
