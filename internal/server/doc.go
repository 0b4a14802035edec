// Package server is how the availmon binary serves a Monitor over HTTP:
// the server's limits, the order of a graceful shutdown, Go's profiles
// behind a flag, the warnings about what is exposed, and the client of
// `availmon healthcheck`. A Go service that embeds availmon serves the
// Monitor's handler with its own server and needs none of it.
package server
